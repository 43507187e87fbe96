import { ApiError, api, qs } from "../api.ts";
import { badge, type Child, duration, h, when } from "../dom.ts";

type Row = Record<string, unknown>;
/** A table row: cell contents by column label, in column order. */
export type Cells = Record<string, Child>;

/**
 * A table with the labels of the other pages' tables (one column per label of the first row); "—"
 * for an empty cell.
 */
export function recordsTable(rows: Cells[], id: string): Node {
  if (rows.length === 0) return h("p", { class: "muted" }, "None.");
  const columns = Object.keys(rows[0] as Cells);
  const cell = (v: Child): Child => (v === null || v === undefined || v === "" ? "—" : v);
  return h(
    "table",
    { id },
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        columns.map((c) => h("th", null, c)),
      ),
    ),
    h(
      "tbody",
      null,
      rows.map((r) =>
        h(
          "tr",
          null,
          columns.map((c) => h("td", null, cell(r[c]))),
        ),
      ),
    ),
  );
}

/** A run as a table row, as Deliveries shows a message: its start links to it; its logs are on its page. */
export const runRow = (r: Row): Cells => ({
  Started: h("a", { href: `#/scripts/runs/${encodeURIComponent(String(r.id))}` }, when(r.started_at as string)),
  Script: `${r.provider_config_key}/${r.script_name} v${r.script_version}`,
  Connection: r.connection_id as string,
  Trigger: r.trigger as string,
  "Called by": calledBy(r.caller as Row | null | undefined),
  Status: badge(String(r.status)),
  Attempt: String(r.attempt),
  Duration: duration(r.duration_ms as number | null),
  Error: r.error ? h("span", { class: "muted" }, `${(r.error as Row).name}: ${(r.error as Row).message}`) : null,
});

const CALLER_KINDS: Record<string, string> = {
  secret_key: "secret key",
  mcp_client: "MCP client",
  dashboard: "dashboard",
};

/** Who started an action run: its kind and name (the key's name, or the MCP client's and its end user). */
export function calledBy(caller: Row | null | undefined): Child {
  if (!caller) return null;
  const kind = CALLER_KINDS[String(caller.kind)] ?? String(caller.kind);
  const user = caller.end_user_id ? ` for ${String(caller.end_user_id)}` : "";
  const title = [caller.key_id, caller.client_id].filter(Boolean).join(" ");
  return h("span", { class: "caller", title }, `${kind} `, h("strong", null, String(caller.name)), user);
}

/** The script runs of one connection, newest first. */
export async function scriptRunsOf(key: string, connectionId: string): Promise<Node> {
  const res = await api<{ data: Row[] }>(
    "GET",
    `/scripts/runs${qs({ provider_config_key: key, connection_id: connectionId, limit: 50 })}`,
  );
  return recordsTable(res.data.map(runRow), "script-runs");
}

/** #/scripts: deployed scripts (latest versions) per integration, and the latest runs. */
export async function scriptsPage(): Promise<Node> {
  let scripts: Row[];
  try {
    scripts = (await api<{ data: Row[] }>("GET", "/scripts")).data;
  } catch (err) {
    if (err instanceof ApiError && err.code === "not_found") {
      return h(
        "section",
        null,
        h("h1", null, "Scripts"),
        h(
          "p",
          { class: "card muted", id: "scripts-unavailable" },
          "Not available: this Junction has no scripts API yet.",
        ),
      );
    }
    throw err;
  }
  const runs = (await api<{ data: Row[] }>("GET", `/scripts/runs${qs({ limit: 50 })}`)).data;
  const scriptRow = (s: Row): Cells => ({
    Integration: s.provider_config_key as string,
    Name: h(
      "a",
      { href: `#/scripts/${encodeURIComponent(String(s.provider_config_key))}/${encodeURIComponent(String(s.name))}` },
      String(s.name),
    ),
    Version: String(s.version),
    Kind: s.kind as string,
    Runs:
      s.kind === "sync"
        ? String(s.frequency).replace(/^(?!every )/, "every ")
        : s.kind === "action"
          ? "on POST /action/trigger"
          : `on ${s.event}`,
    "Webhook subscriptions": (s.webhook_subscriptions as string[]).join(", "),
    "Forwards webhooks": s.kind === "sync" ? (s.forward_webhooks_too ? "yes" : "no") : null,
    File: s.filename as string,
    Deployed: when(s.created_at as string),
  });
  return h(
    "section",
    null,
    h("h1", null, "Scripts"),
    h(
      "p",
      { class: "muted" },
      "Deploy with POST /scripts or `junction scripts deploy <integration> <file>`; run syncs now with POST /sync/trigger, actions with POST /action/trigger.",
    ),
    h("div", { class: "card", id: "scripts" }, recordsTable(scripts.map(scriptRow), "scripts-table")),
    h("h2", null, "Latest runs"),
    h("div", { class: "card", id: "latest-script-runs" }, recordsTable(runs.map(runRow), "script-runs")),
  );
}
