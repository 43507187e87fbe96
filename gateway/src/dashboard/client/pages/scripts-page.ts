import { ApiError, api, qs } from "../api.ts";
import { h } from "../dom.ts";

type Row = Record<string, unknown>;

/**
 * A table of whatever records an API answers with ({data: [...]}): one column per field, nested
 * values as JSON, `logs` in full under the table.
 */
export function recordsTable(rows: Row[], id: string): Node {
  if (rows.length === 0) return h("p", { class: "muted" }, "None.");
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((c) => c !== "logs");
  const cell = (v: unknown): Node | string =>
    v instanceof Node ? v : v === null || v === undefined ? "—" : typeof v === "object" ? JSON.stringify(v) : String(v);
  return h(
    "div",
    null,
    h(
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
            columns.map((c) => h("td", { class: "mono" }, cell(r[c]))),
          ),
        ),
      ),
    ),
    rows
      .filter((r) => r.logs !== undefined)
      .map((r) => h("pre", { class: "logs" }, typeof r.logs === "string" ? r.logs : JSON.stringify(r.logs, null, 2))),
  );
}

/** A run as a table row: what went wrong in one cell; its logs are on the run's page. */
export const runRow = (r: Row): Row => ({
  id: h("a", { href: `#/scripts/runs/${encodeURIComponent(String(r.id))}` }, String(r.id)),
  script: `${r.provider_config_key}/${r.script_name} v${r.script_version}`,
  connection_id: r.connection_id,
  trigger: r.trigger,
  status: r.status,
  attempt: r.attempt,
  started_at: r.started_at,
  duration_ms: r.duration_ms,
  error: r.error ? `${(r.error as Row).name}: ${(r.error as Row).message}` : null,
});

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
  const scriptRow = (s: Row): Row => ({
    integration: s.provider_config_key,
    name: h(
      "a",
      { href: `#/scripts/${encodeURIComponent(String(s.provider_config_key))}/${encodeURIComponent(String(s.name))}` },
      String(s.name),
    ),
    version: s.version,
    kind: s.kind,
    runs:
      s.kind === "sync"
        ? String(s.frequency).replace(/^(?!every )/, "every ")
        : s.kind === "action"
          ? "on POST /action/trigger"
          : `on ${s.event}`,
    webhook_subscriptions: (s.webhook_subscriptions as string[]).join(", ") || null,
    forward_webhooks_too: s.kind === "sync" ? s.forward_webhooks_too : null,
    filename: s.filename,
    deployed_at: s.created_at,
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
