import { API_KEY_SCOPES } from "../../../middleware/api-key-scopes.ts";
import { api, errorBox } from "../api.ts";
import { badge, h, replace, when } from "../dom.ts";
import { copyField } from "./copy-field.ts";

export interface SecretKeyInfo {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

/**
 * The environment's secret keys: create one (a name, optionally limited to scopes; its plaintext shown
 * once), the list with scopes, created and last used, and Revoke behind a confirmation. The session's
 * own key has no Revoke button: the API refuses it (409 revoking_own_key) so a click never locks the
 * operator out.
 */
export async function secretKeysCard(sessionKeyId: string): Promise<HTMLElement> {
  const card = h("div", { class: "card", id: "secret-keys" });
  const draw = async (shownOnce?: { name: string; secret: string }) => {
    const { data } = await api<{ data: SecretKeyInfo[] }>("GET", "/secret-keys");
    replace(
      card,
      h("h2", null, "Secret keys"),
      keysTable(data, sessionKeyId, () => void draw()),
      createForm((created) => void draw(created)),
      shownOnce ? keyShownOnce(shownOnce.name, shownOnce.secret) : null,
    );
  };
  await draw();
  return card;
}

function keysTable(keys: SecretKeyInfo[], sessionKeyId: string, redraw: () => void): Node {
  const head = h(
    "tr",
    null,
    ["Name", "Key", "Scopes", "Created", "Last used", ""].map((t) => h("th", null, t)),
  );
  const rows = keys.map((k) =>
    h(
      "tr",
      { "data-key-id": k.id, "data-key-name": k.name },
      h("td", null, k.name || h("span", { class: "muted" }, "(unnamed)")),
      h("td", { class: "mono" }, `${k.prefix}…`),
      h("td", { class: "key-scopes" }, scopesOf(k)),
      h("td", null, when(k.created_at)),
      h("td", null, k.last_used_at ? when(k.last_used_at) : "never"),
      h("td", null, keyAction(k, sessionKeyId, redraw)),
    ),
  );
  return h("table", { id: "keys-table" }, h("thead", null, head), h("tbody", null, rows));
}

function scopesOf(k: SecretKeyInfo): Node | Node[] {
  if (k.scopes.length === 0) return badge("full access", "on");
  return k.scopes.map((s) => h("code", { class: "scope" }, s));
}

/** Revoke (asks first), or why there is none. */
function keyAction(k: SecretKeyInfo, sessionKeyId: string, redraw: () => void): Node {
  if (k.revoked_at) return badge(`revoked ${when(k.revoked_at)}`, "error");
  if (k.id === sessionKeyId) return h("span", { class: "muted", title: "Revoke it with another key." }, "this session");
  const box = h("div", { class: "revoke" });
  const ask = h("button", { type: "button", class: "secondary" }, "Revoke");
  ask.addEventListener("click", () => {
    const yes = h("button", { type: "button", class: "danger", "data-confirm": "revoke" }, "Yes, revoke");
    const no = h("button", { type: "button", class: "secondary" }, "Cancel");
    const out = h("div");
    yes.addEventListener("click", async () => {
      yes.disabled = true;
      try {
        await api("DELETE", `/secret-keys/${encodeURIComponent(k.id)}`);
        redraw();
      } catch (err) {
        replace(out, errorBox(err, "revoke-error"));
        yes.disabled = false;
      }
    });
    no.addEventListener("click", () => replace(box, ask));
    replace(
      box,
      h("span", null, `Revoke ${k.name || k.prefix}? Calls with it fail within seconds. `),
      yes,
      " ",
      no,
      out,
    );
  });
  box.append(ask);
  return box;
}

function createForm(created: (k: { name: string; secret: string }) => void): Node {
  const name = h("input", { type: "text", id: "new-key-name", class: "grow", placeholder: "ci, agent, backend…" });
  const boxes = API_KEY_SCOPES.filter((s) => s !== "environment:*").map((scope) =>
    h("label", null, h("input", { type: "checkbox", value: scope, "data-scope": scope }), h("code", null, scope)),
  );
  const out = h("div", { id: "create-key-result" });
  const submit = h("button", { type: "submit", id: "create-key" }, "Create key");
  const form = h(
    "form",
    {
      id: "create-key-form",
      onsubmit: async (ev: Event) => {
        ev.preventDefault();
        replace(out);
        submit.disabled = true;
        const scopes = boxes.map((l) => l.querySelector("input") as HTMLInputElement).filter((i) => i.checked);
        try {
          const { data } = await api<{ data: SecretKeyInfo & { secret_key: string } }>("POST", "/secret-keys", {
            ...(name.value.trim() ? { name: name.value.trim() } : {}),
            scopes: scopes.map((i) => i.value),
          });
          created({ name: data.name || data.prefix, secret: data.secret_key });
        } catch (err) {
          replace(out, errorBox(err, "create-key-error"));
          submit.disabled = false;
        }
      },
    },
    h("h3", null, "New key"),
    h("div", { class: "row" }, h("label", { for: "new-key-name" }, "Name"), name, submit),
    h(
      "details",
      { id: "key-scopes" },
      h("summary", null, "Limit to scopes (none ticked: full access)"),
      h("div", { class: "scopes scope-grid" }, boxes),
    ),
    out,
  );
  return form;
}

function keyShownOnce(name: string, secret: string): Node {
  return h(
    "div",
    { class: "hint", id: "new-key" },
    h("p", null, `The new key ${name}, shown this once: store it now; Junction keeps only its hash.`),
    copyField("new-key-value", secret),
  );
}
