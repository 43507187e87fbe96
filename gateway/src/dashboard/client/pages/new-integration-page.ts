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

/** #/integrations/new: create an integration from a provider template. */
export async function newIntegrationPage(): Promise<Node> {
  const { data: providers } = await api<{ data: Provider[] }>("GET", "/providers");
  const first = providers[0];
  if (!first) return h("p", { class: "error" }, "This Junction has no provider template.");
  const key = h("input", { type: "text", id: "unique_key", value: first.name, required: true, maxlength: 255 });
  const name = h("input", { type: "text", id: "display_name", placeholder: first.display_name, maxlength: 255 });
  const clientId = h("input", { type: "text", id: "client_id", autocomplete: "off" });
  const clientSecret = h("input", { type: "password", id: "client_secret", autocomplete: "new-password" });
  const scopesBox = h("div");
  const settingsBox = h("div");
  const managed = h("input", { type: "checkbox", id: "new-managed-channels" });
  const result = h("div", { id: "create-result" });
  const create = h("button", { type: "submit", id: "create" }, "Create integration");
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
  const showScopes = (p: Provider | undefined) => {
    create.disabled = !p;
    if (!p) return;
    key.value = p.name;
    name.placeholder = p.display_name;
    oauthBox.hidden = p.auth_mode !== "OAUTH2" && p.auth_mode !== "OAUTH2_CC";
    replace(scopesBox, scopeChecklist(p.scopes, new Set(p.default_scopes)));
    const settings = p.integration_settings ?? [];
    replace(
      settingsBox,
      settings.length > 0 ? [h("label", null, "Provider settings"), settingInputs(settings, {})] : null,
    );
    managed.checked = false;
    managed.disabled = !p.channels?.manageable;
  };
  const picker = providerPicker(providers, showScopes);
  const selected = () => picker.selected() ?? first;
  showScopes(picker.selected());

  const submit = async (e: Event) => {
    e.preventDefault();
    replace(result);
    const p = selected();
    const oauth = !oauthBox.hidden;
    const scopes = oauth ? checkedScopes(scopesBox) : [];
    const withCredentials = oauth && (clientId.value.trim() !== "" || clientSecret.value !== "");
    const defaults = [...p.default_scopes].sort().join(" ");
    if (oauth && !withCredentials && [...scopes].sort().join(" ") !== defaults) {
      replace(
        result,
        h(
          "p",
          { class: "error" },
          "Scopes are saved with the client id and secret. Enter both to choose scopes, or keep the template's defaults.",
        ),
      );
      return;
    }
    const settings = Object.fromEntries(Object.entries(settingValues(settingsBox)).filter(([, v]) => v !== ""));
    try {
      const { data } = await api<{ data: Integration }>("POST", "/integrations", {
        unique_key: key.value.trim(),
        provider: p.name,
        ...(name.value.trim() ? { display_name: name.value.trim() } : {}),
        ...(withCredentials
          ? {
              credentials: {
                type: "OAUTH2",
                client_id: clientId.value.trim(),
                client_secret: clientSecret.value,
                scopes,
              },
            }
          : {}),
        ...(Object.keys(settings).length > 0 ? { provider_settings: settings } : {}),
        ...(managed.checked ? { managed_channels: true } : {}),
      });
      location.hash = `#/integrations/${encodeURIComponent(data.unique_key)}`;
    } catch (err) {
      replace(result, errorBox(err, "create-error"));
    }
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
      key,
      h("label", { for: "display_name" }, "Display name"),
      name,
      oauthBox,
      settingsBox,
      h("label", { class: "switch" }, managed, "Junction manages notification channels (no script needed)"),
      h("div", { class: "row" }, create),
      result,
    ),
  );
}
