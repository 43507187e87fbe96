import { api, errorBox } from "../api.ts";
import { badge, breakable, h, replace } from "../dom.ts";
import type { Integration, Provider, ScopeInfo } from "../types.ts";
import { providerPicker } from "./provider-picker.ts";
import { settingInputs, settingValues } from "./provider-settings-card.ts";

/** One checkbox per scope of the template's catalogue, with its sensitivity and what it grants. */
export function scopeChecklist(scopes: ScopeInfo[], checked: Set<string>): HTMLElement {
  return h(
    "div",
    { class: "scopes", id: "scopes" },
    scopes.map((s) =>
      h(
        "label",
        null,
        h("input", { type: "checkbox", name: "scope", value: s.name, checked: checked.has(s.name) }),
        h("code", null, breakable(s.name)),
        s.sensitivity ? badge(s.sensitivity) : badge("not classified", "unknown"),
        h("span", { class: "muted" }, s.description ?? ""),
      ),
    ),
  );
}

/** The scopes ticked in a checklist, in catalogue order. */
export function checkedScopes(root: HTMLElement): string[] {
  return Array.from(root.querySelectorAll<HTMLInputElement>('input[name="scope"]:checked')).map((i) => i.value);
}

/** The form's inputs, shared by the page, its template switch and its submit. */
interface NewIntegrationForm {
  key: HTMLInputElement;
  name: HTMLInputElement;
  clientId: HTMLInputElement;
  clientSecret: HTMLInputElement;
  scopesBox: HTMLElement;
  settingsBox: HTMLElement;
  managed: HTMLInputElement;
  result: HTMLElement;
  create: HTMLButtonElement;
  oauthBox: HTMLElement;
}

/** #/integrations/new: create an integration from a provider template. */
export async function newIntegrationPage(): Promise<Node> {
  const { data: providers } = await api<{ data: Provider[] }>("GET", "/providers");
  const first = providers[0];
  if (!first) return h("p", { class: "error" }, "This Junction has no provider template.");
  const f = formInputs(first);
  const picker = providerPicker(providers, (p) => showTemplate(f, p));
  showTemplate(f, picker.selected());
  const submit = async (e: Event) => {
    e.preventDefault();
    await createIntegration(f, picker.selected() ?? first);
  };
  return h(
    "section",
    null,
    h("h1", null, "New integration"),
    h(
      "form",
      { class: "card", id: "new-integration-form", onsubmit: submit },
      h("label", { for: "provider-search" }, "Provider"),
      picker.element,
      h("label", { for: "unique_key" }, "Integration id (provider config key)"),
      f.key,
      h("label", { for: "display_name" }, "Display name"),
      f.name,
      f.oauthBox,
      f.settingsBox,
      h("label", { class: "switch" }, f.managed, "Junction manages notification channels (no script needed)"),
      h("div", { class: "row" }, f.create),
      f.result,
    ),
  );
}

function formInputs(first: Provider): NewIntegrationForm {
  const clientId = h("input", { type: "text", id: "client_id", autocomplete: "off" });
  const clientSecret = h("input", { type: "password", id: "client_secret", autocomplete: "new-password" });
  const scopesBox = h("div");
  // An OAuth client is asked for OAuth providers only; an API key or password is the user's, on the connect page.
  const oauthBox = h(
    "div",
    { id: "oauth-client" },
    h("label", { for: "client_id" }, "OAuth client id"),
    clientId,
    h("label", { for: "client_secret" }, "OAuth client secret"),
    clientSecret,
    h(
      "p",
      { class: "muted" },
      "Leave both empty to enter them later on the integration's page; there, if the operator configured test credentials for this provider, you can switch them on instead.",
    ),
    h("label", null, "Scopes"),
    scopesBox,
  );
  return {
    key: h("input", { type: "text", id: "unique_key", value: first.name, required: true, maxlength: 255 }),
    name: h("input", { type: "text", id: "display_name", placeholder: first.display_name, maxlength: 255 }),
    clientId,
    clientSecret,
    scopesBox,
    settingsBox: h("div"),
    managed: h("input", { type: "checkbox", id: "new-managed-channels" }),
    result: h("div", { id: "create-result" }),
    create: h("button", { type: "submit", id: "create" }, "Create integration"),
    oauthBox,
  };
}

/** Fills the form for the template picked: its id, scopes, settings and whether it can manage channels. */
function showTemplate(f: NewIntegrationForm, p: Provider | undefined): void {
  f.create.disabled = !p;
  if (!p) return;
  f.key.value = p.name;
  f.name.placeholder = p.display_name;
  f.oauthBox.hidden = p.auth_mode !== "OAUTH2" && p.auth_mode !== "OAUTH2_CC";
  replace(f.scopesBox, scopeChecklist(p.scopes, new Set(p.default_scopes)));
  const settings = p.integration_settings ?? [];
  replace(
    f.settingsBox,
    settings.length > 0 ? [h("label", null, "Provider settings"), settingInputs(settings, {})] : null,
  );
  f.managed.checked = false;
  f.managed.disabled = !p.channels?.manageable;
}

/** Creates the integration and opens its page; scopes other than the defaults need the client's credentials. */
async function createIntegration(f: NewIntegrationForm, p: Provider): Promise<void> {
  replace(f.result);
  const oauth = !f.oauthBox.hidden;
  const scopes = oauth ? checkedScopes(f.scopesBox) : [];
  const withCredentials = oauth && (f.clientId.value.trim() !== "" || f.clientSecret.value !== "");
  const defaults = [...p.default_scopes].sort().join(" ");
  if (oauth && !withCredentials && [...scopes].sort().join(" ") !== defaults) {
    replace(
      f.result,
      h(
        "p",
        { class: "error" },
        "Scopes are saved with the client id and secret. Enter both to choose scopes, or keep the template's defaults.",
      ),
    );
    return;
  }
  const settings = Object.fromEntries(Object.entries(settingValues(f.settingsBox)).filter(([, v]) => v !== ""));
  try {
    const { data } = await api<{ data: Integration }>("POST", "/integrations", {
      unique_key: f.key.value.trim(),
      provider: p.name,
      ...(f.name.value.trim() ? { display_name: f.name.value.trim() } : {}),
      ...(withCredentials
        ? {
            credentials: {
              type: "OAUTH2",
              client_id: f.clientId.value.trim(),
              client_secret: f.clientSecret.value,
              scopes,
            },
          }
        : {}),
      ...(Object.keys(settings).length > 0 ? { provider_settings: settings } : {}),
      ...(f.managed.checked ? { managed_channels: true } : {}),
    });
    location.hash = `#/integrations/${encodeURIComponent(data.unique_key)}`;
  } catch (err) {
    replace(f.result, errorBox(err, "create-error"));
  }
}
