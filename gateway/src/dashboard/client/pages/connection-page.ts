import { ApiError, api, errorBox, qs } from "../api.ts";
import { badge, fields, h, hashLink, jsonBlock, replace, when } from "../dom.ts";
import type { Channel, Connection, ConnectionError } from "../types.ts";
import { authorizeInPopup } from "./authorize-popup.ts";
import { channelsTable } from "./channels-page.ts";
import { type MetadataKey, metadataEditor } from "./metadata-editor.ts";
import { recordModelsTable } from "./records-page.ts";
import { scriptRunsOf } from "./scripts-page.ts";

/** What to do about each kind of connection error (the message itself says why, from the provider). */
const WHAT_TO_DO: Record<string, string> = {
  refresh_failed: "Authorize the connection again (Re-authorize below). Calls fail fast until then.",
  refresh_unavailable: "The token endpoint did not answer; Junction tries again on the next use.",
  email_address_hash_unavailable:
    "Set metadata.emailAddress, or authorize again, so that notifications can be matched.",
};

/** A section filled later; a capability this Junction does not have yet says so instead of failing the page. */
export function lateSection(id: string, title: string, load: () => Promise<Node>): HTMLElement {
  const body = h("div", { id }, h("p", { class: "muted" }, "Loading…"));
  load().then(
    (node) => replace(body, node),
    (err) =>
      replace(
        body,
        err instanceof ApiError && err.code === "not_found"
          ? h(
              "p",
              { class: "muted", "data-unavailable": "true" },
              `Not available: this Junction has no ${title.toLowerCase()} API yet.`,
            )
          : errorBox(err),
      ),
  );
  return h("div", { class: "card" }, h("h2", null, title), body);
}

function errorsCard(key: string, c: Connection): HTMLElement {
  const out = h("div", { id: "reauthorize-result" });
  const button = h("button", { type: "button", class: "secondary", id: "reauthorize" }, "Re-authorize");
  button.addEventListener("click", () =>
    authorizeInPopup(key, "/connect/sessions/reconnect", { connection_id: c.connection_id, integration_id: key }, out),
  );
  const item = (e: ConnectionError) =>
    h(
      "li",
      { "data-error-type": e.type },
      badge(e.type, "error"),
      " ",
      h("span", { class: "muted" }, when(e.created_at)),
      h("div", { class: "error" }, e.message),
      WHAT_TO_DO[e.type] ? h("p", null, h("strong", null, "Next step: "), WHAT_TO_DO[e.type]) : null,
    );
  return h(
    "div",
    { class: "card", id: "connection-errors" },
    h("h2", null, "Errors"),
    c.errors.length === 0 ? h("p", { class: "muted" }, "None.") : h("ul", null, c.errors.map(item)),
    h("div", { class: "row" }, button),
    out,
  );
}

/** The operator's JUNCTION_CREDENTIAL_READS, read-only: whether the API returns this connection's tokens. */
function credentialReads(on: boolean): HTMLElement {
  return h(
    "span",
    { id: "credential-reads", "data-credential-reads": String(on) },
    on
      ? "On: GET /connections/{id} returns the access token to secret-key holders (operator setting JUNCTION_CREDENTIAL_READS)."
      : "Off: the operator set JUNCTION_CREDENTIAL_READS=false; the API returns no tokens (403 credential_reads_disabled), only the proxy uses them.",
  );
}

/** #/connections/{integration}/{id}: one connection, its config, metadata, errors, channels and script runs. */
export async function connectionPage(key: string, connectionId: string): Promise<Node> {
  const [c, session] = await Promise.all([
    api<Connection>("GET", `/connections/${encodeURIComponent(connectionId)}${qs({ provider_config_key: key })}`),
    api<{ data: { credential_reads: boolean; metadata_keys: MetadataKey[] } }>("GET", "/session"),
  ]);
  return h(
    "section",
    { "data-connection-id": connectionId },
    h("h1", null, "Connection ", h("span", { class: "mono" }, connectionId)),
    h(
      "p",
      null,
      h(
        "a",
        { id: "connection-operations", href: hashLink("/logs", { integration: key, connection: connectionId }) },
        "Its operations →",
      ),
    ),
    h(
      "div",
      { class: "card" },
      connectionFields(key, connectionId, c, session.data.credential_reads),
      h("h2", null, "connection_config"),
      jsonBlock(c.connection_config, "connection-config"),
    ),
    errorsCard(key, c),
    metadataEditor(key, connectionId, c.metadata, session.data.metadata_keys),
    lateSection("connection-channels", "Channels", async () => {
      const res = await api<{ data: Channel[] }>(
        "GET",
        `/channels${qs({ integration: key, connection: connectionId })}`,
      );
      return channelsTable(res.data);
    }),
    lateSection("connection-records", "Records", () => recordModelsTable(key, connectionId)),
    lateSection("connection-script-runs", "Script runs", () => scriptRunsOf(key, connectionId)),
    h("div", { class: "card" }, h("h2", null, "Danger zone"), ...deleteButton(key, connectionId)),
  );
}

/** What the page shows of the connection; tokens never. */
function connectionFields(key: string, connectionId: string, c: Connection, credentialReadsOn: boolean) {
  return fields([
    ["Integration", h("a", { href: hashLink(`/integrations/${encodeURIComponent(key)}`) }, key)],
    ["Provider", c.provider],
    [
      "End user",
      c.end_user ? `${c.end_user.display_name ?? ""} ${c.end_user.email ?? ""} (${c.end_user.id ?? "?"})` : "—",
    ],
    [
      "Tags",
      Object.keys(c.tags ?? {}).length === 0
        ? "—"
        : h(
            "span",
            { id: "connection-tags" },
            Object.entries(c.tags ?? {}).map(([k, v]) => h("span", { class: "mono", "data-tag": k }, `${k}=${v} `)),
          ),
    ],
    [
      "Webhook URL override",
      c.webhook_url_override
        ? h("span", { id: "connection-webhook-url-override", class: "mono" }, c.webhook_url_override)
        : "— (the environment's endpoints)",
    ],
    ["Created", when(c.created_at)],
    ["Updated", when(c.updated_at)],
    [
      "Credentials",
      `${c.credentials.type}, access token expires ${when(c.credentials.expires_at)} (tokens are never shown here)`,
    ],
    ["Credential reads", credentialReads(credentialReadsOn)],
    [
      "Deliveries",
      h(
        "a",
        { href: hashLink("/deliveries", { integration: key, connection: connectionId }) },
        "Forwarded webhooks for this connection",
      ),
    ],
  ]);
}

/** The delete button and where its error shows; deleting goes back to the integration's connections. */
function deleteButton(key: string, connectionId: string): [HTMLElement, HTMLElement] {
  const del = h("button", { type: "button", class: "danger", id: "delete-connection" }, "Delete connection");
  const delOut = h("div");
  del.addEventListener("click", async () => {
    if (
      !confirm(
        `Delete the connection "${connectionId}"? Its tokens are deleted; channels it created keep sending until stopped or expired.`,
      )
    )
      return;
    try {
      await api("DELETE", `/connections/${encodeURIComponent(connectionId)}${qs({ provider_config_key: key })}`);
      location.hash = hashLink("/connections", { integration: key });
    } catch (err) {
      replace(delOut, errorBox(err));
    }
  });
  return [del, delOut];
}
