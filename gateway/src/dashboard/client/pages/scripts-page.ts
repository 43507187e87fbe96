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
  const cell = (v: unknown) =>
    v === null || v === undefined ? "—" : typeof v === "object" ? JSON.stringify(v) : String(v);
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

/** The script runs of one connection, newest first. */
export async function scriptRunsOf(key: string, connectionId: string): Promise<Node> {
  const res = await api<{ data: Row[] }>(
    "GET",
    `/scripts/runs${qs({ provider_config_key: key, connection_id: connectionId })}`,
  );
  return recordsTable(res.data, "script-runs");
}

/** #/scripts: deployed scripts per integration with their versions, and their latest runs. */
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
  return h("section", null, h("h1", null, "Scripts"), h("div", { class: "card" }, recordsTable(scripts, "scripts")));
}
