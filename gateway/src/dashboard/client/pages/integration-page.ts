import { api, errorBox, page } from "../api.ts";
import { badge, fields, h, hashLink, replace } from "../dom.ts";
import type { Consent, Integration, Provider, TestMode } from "../types.ts";
import { authorizeInPopup } from "./authorize-popup.ts";
import { copyField } from "./copy-field.ts";
import { lateSection } from "./connection-page.ts";
import { providerSettingsCard } from "./provider-settings-card.ts";
import { recordsRetentionCard } from "./records-retention-card.ts";
import { toolsTable } from "./tools-table.ts";
import { checkedScopes, scopeChecklist } from "./new-integration-page.ts";

const path = (key: string) => `/integrations/${encodeURIComponent(key)}`;

/** #/integrations/{id}: the settings page (spec: Integration: "webhook URL: shown on the integration's settings page"). */
export async function integrationPage(key: string): Promise<Node> {
  const [{ data: integration }, { data: testMode }, { data: consent }, { data: providers }] = await Promise.all([
    api<{ data: Integration }>("GET", `${path(key)}?include=webhook&include=credentials`),
    api<{ data: TestMode }>("GET", `${path(key)}/test-mode`),
    api<{ data: Consent }>("GET", `${path(key)}/consent`),
    api<{ data: Provider[] }>("GET", "/providers"),
  ]);
  const provider = providers.find((p) => p.name === integration.provider);
  const enc = encodeURIComponent(key);
  return h(
    "section",
    { "data-integration": key },
    h("h1", null, integration.display_name, " ", h("span", { class: "muted mono" }, key)),
    h(
      "p",
      { class: "row" },
      h("a", { href: hashLink("/connections", { integration: key }) }, "Connections"),
      h("a", { href: hashLink("/deliveries", { integration: key }) }, "Deliveries"),
      h("a", { href: hashLink("/channels", { integration: key }) }, "Channels"),
    ),
    addressesCard(integration, provider),
    testModeCard(key, testMode),
    lateSection("integration-tools", "Tools (MCP)", () => toolsTable(key)),
    testConnectionCard(key, testMode),
    credentialsCard(key, integration, provider),
    providerSettingsCard(key, integration, provider),
    recordsRetentionCard(key),
    consentCard(consent),
    h("div", { class: "card" }, h("h2", null, "Danger zone"), deleteButton(enc, key)),
  );
}

/** The integration's webhook URL and the OAuth redirect URI, each with a copy button. */
function addressesCard(integration: Integration, provider: Provider | undefined): HTMLElement {
  return h(
    "div",
    { class: "card" },
    h("h2", null, "Webhook URL"),
    h(
      "p",
      { class: "muted" },
      provider?.channels
        ? `Use it as the address of this provider's notifications (each ${provider.channels.kind}).`
        : "Where this provider's notifications are received.",
    ),
    copyField("webhook-url", integration.webhook_url ?? ""),
    h("h2", null, "Redirect URI"),
    h("p", { class: "muted" }, "Register it upstream as an authorized redirect URI of your OAuth client."),
    copyField("redirect-uri", `${page.baseUrl}/oauth/callback`),
  );
}

/** A button that authorizes a test connection in a popup, through a connect session for this integration. */
function testConnectionCard(key: string, testMode: TestMode): HTMLElement {
  const out = h("div", { id: "test-connection-result" });
  const button = h("button", { type: "button", id: "test-connection" }, "Test connection");
  button.addEventListener("click", () =>
    authorizeInPopup(
      key,
      "/connect/sessions",
      {
        end_user: { id: "dashboard-test", display_name: "Dashboard test connection" },
        allowed_integrations: [key],
      },
      out,
    ),
  );
  return h(
    "div",
    { class: "card" },
    h("h2", null, "Test connection"),
    h(
      "p",
      { class: "muted" },
      testMode.sandbox && testMode.enabled
        ? "Authorizes against the built-in sandbox upstream: type any email and press Allow."
        : "Opens the provider's consent screen in a new window; sign in there.",
    ),
    h("div", null, button, out),
  );
}

function testModeCard(key: string, t: TestMode): HTMLElement {
  // Offered only where the operator configured test credentials for this provider.
  if (!t.available && !t.enabled) {
    return h(
      "div",
      { class: "card", id: "test-mode-card" },
      h("h2", null, "Test credentials"),
      h(
        "p",
        { class: "muted", id: "test-mode-status" },
        "None for this provider: the operator configured no test credentials for it. Enter your OAuth client under Client and scopes.",
      ),
    );
  }
  const out = h("div", { id: "test-mode-result" });
  const status = h("span", { class: "muted", id: "test-mode-status" });
  const show = (m: TestMode) => {
    status.textContent = m.enabled
      ? `On: client ${m.client_id ?? "?"}${m.sandbox ? " (built-in sandbox upstream)" : ""}`
      : "Off";
  };
  const box = h("input", { type: "checkbox", id: "test-mode", checked: t.enabled });
  box.addEventListener("change", async () => {
    replace(out);
    box.disabled = true;
    try {
      const { data } = await api<{ data: TestMode }>("PUT", `${path(key)}/test-mode`, { enabled: box.checked });
      box.checked = data.enabled;
      show(data);
    } catch (err) {
      box.checked = !box.checked;
      replace(out, errorBox(err));
    }
    box.disabled = false;
  });
  show(t);
  return h(
    "div",
    { class: "card", id: "test-mode-card" },
    h("h2", null, "Test credentials"),
    h(
      "p",
      { class: "muted" },
      "Authorize with Junction's own OAuth client instead of yours, for development. Existing connections keep the client they were authorized with.",
    ),
    h("label", { class: "switch" }, box, "Use test credentials"),
    " ",
    status,
    out,
  );
}

function credentialsCard(key: string, i: Integration, provider: Provider | undefined): HTMLElement {
  const current = new Set((i.credentials?.scopes ?? "").split(",").filter(Boolean));
  const catalogue = provider?.scopes ?? [];
  const extra = [...current].filter((s) => !catalogue.some((c) => c.name === s));
  const list = scopeChecklist(
    [
      ...catalogue,
      ...extra.map((name) => ({ name, description: "Not in the template's catalogue.", sensitivity: "unknown" })),
    ],
    current,
  );
  const clientId = h("input", {
    type: "text",
    id: "edit-client-id",
    value: i.credentials?.client_id ?? "",
    autocomplete: "off",
  });
  const secret = h("input", {
    type: "password",
    id: "edit-client-secret",
    autocomplete: "new-password",
    placeholder: i.credentials?.client_secret_set ? "set (leave empty to keep)" : "not set",
  });
  const out = h("div", { id: "credentials-result" });
  const save = async (e: Event) => {
    e.preventDefault();
    replace(out);
    try {
      await api("PATCH", path(key), {
        credentials: {
          type: "OAUTH2",
          client_id: clientId.value.trim(),
          ...(secret.value ? { client_secret: secret.value } : {}),
          scopes: checkedScopes(list),
        },
      });
      secret.value = "";
      replace(out, h("p", { class: "ok" }, "Saved."));
    } catch (err) {
      replace(out, errorBox(err));
    }
  };
  return h(
    "form",
    { class: "card", onsubmit: save, id: "credentials-form" },
    h("h2", null, "OAuth client and scopes"),
    fields([["Client secret", i.credentials?.client_secret_set ? "set (never shown)" : "not set"]]),
    h("label", { for: "edit-client-id" }, "Client id"),
    clientId,
    h("label", { for: "edit-client-secret" }, "New client secret"),
    secret,
    h("label", null, "Scopes"),
    list,
    h("button", { type: "submit" }, "Save"),
    out,
  );
}

function consentCard(c: Consent): HTMLElement {
  return h(
    "div",
    { class: "card", id: "consent" },
    h("h2", null, "Consent at the provider"),
    h(
      "p",
      null,
      "Highest sensitivity: ",
      badge(c.highest_sensitivity),
      c.verification_required ? " · app verification needed to go live" : "",
      c.security_assessment_required ? " · security assessment needed" : "",
    ),
    h(
      "ul",
      null,
      c.notes.map((n) => h("li", null, n)),
    ),
  );
}

function deleteButton(enc: string, key: string): HTMLElement {
  const out = h("div");
  const button = h("button", { type: "button", class: "danger", id: "delete-integration" }, "Delete integration");
  button.addEventListener("click", async () => {
    if (!confirm(`Delete the integration "${key}" and all its connections? This cannot be undone.`)) return;
    try {
      await api("DELETE", `/integrations/${enc}?force=true`);
      location.hash = "#/integrations";
    } catch (err) {
      replace(out, errorBox(err));
    }
  });
  return h("div", null, button, out);
}
