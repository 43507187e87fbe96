import { api, qs } from "../api.ts";
import { badge, connectionHref, h, hashLink, hashQuery, jsonBlock, when } from "../dom.ts";

interface RecordModel {
  model: string;
  variant: string;
  count: number;
  last_modified_at: string | null;
}

interface StoredRecord {
  id: string;
  _nango_metadata: { last_action: string; last_modified_at: string; deleted_at: string | null; cursor: string };
  [field: string]: unknown;
}

const PAGE = 20;
const FILTERS = ["", "added", "updated", "deleted"];
const BADGE: Record<string, string> = { ADDED: "on", UPDATED: "expiring", DELETED: "error" };

/** The connection's headers, as GET /records and /records/models take them. */
const scopeOf = (key: string, connectionId: string) => ({
  "connection-id": connectionId,
  "provider-config-key": key,
});

const recordsLink = (key: string, id: string, model: string, query: Record<string, string | undefined> = {}) =>
  hashLink(
    `/connections/${encodeURIComponent(key)}/${encodeURIComponent(id)}/records/${encodeURIComponent(model)}`,
    query,
  );

/** A connection's record models (GET /records/models), each linking to its records. */
export async function recordModelsTable(key: string, connectionId: string): Promise<Node> {
  const { data } = await api<{ data: RecordModel[] }>("GET", "/records/models", undefined, scopeOf(key, connectionId));
  if (data.length === 0) return h("p", { class: "muted" }, "No records: no sync has saved any for this connection.");
  const head = h(
    "tr",
    null,
    ["Model", "Variant", "Records", "Last change"].map((t) => h("th", null, t)),
  );
  const rows = data.map((m) =>
    h(
      "tr",
      { "data-model": m.model },
      h(
        "td",
        null,
        h("a", { href: recordsLink(key, connectionId, m.model, { variant: m.variant || undefined }) }, m.model),
      ),
      h("td", null, m.variant || "base"),
      h("td", { class: "record-count" }, String(m.count)),
      h("td", null, when(m.last_modified_at)),
    ),
  );
  return h("table", { id: "record-models" }, h("thead", null, head), h("tbody", null, rows));
}

/**
 * #/connections/{integration}/{id}/records/{model}?variant&filter&cursor: a page of the model's
 * records (GET /records, newest change last, as Nango orders them), filtered by last action; each
 * record's JSON with its `_nango_metadata` opens under it.
 */
export async function recordsPage(key: string, connectionId: string, model: string): Promise<Node> {
  const q = hashQuery();
  const variant = q.get("variant") ?? undefined;
  const filter = q.get("filter") ?? "";
  const cursor = q.get("cursor") ?? undefined;
  const page = await api<{ records: StoredRecord[]; next_cursor: string | null }>(
    "GET",
    `/records${qs({ model, variant, filter, cursor, limit: PAGE })}`,
    undefined,
    scopeOf(key, connectionId),
  );
  const select = h(
    "select",
    { id: "record-filter" },
    FILTERS.map((f) => h("option", { value: f, selected: f === filter }, f || "all")),
  );
  select.addEventListener("change", () => {
    location.hash = recordsLink(key, connectionId, model, { variant, filter: select.value || undefined });
  });
  const rows = page.records.map(recordRow);
  const connection = connectionHref(key, connectionId);
  return h(
    "section",
    { id: "records", "data-model": model },
    h("h1", null, "Records ", h("span", { class: "mono" }, model)),
    h("p", null, h("a", { href: connection }, `← connection ${connectionId}`), variant ? ` · variant ${variant}` : ""),
    h(
      "div",
      { class: "card" },
      h("div", { class: "row" }, h("label", { for: "record-filter" }, "Last action"), select),
      rows.length > 0 ? h("div", { id: "record-list" }, rows) : h("p", { class: "muted" }, "No records on this page."),
      recordsPager(key, connectionId, model, { variant, filter: filter || undefined }, cursor, page.next_cursor),
    ),
  );
}

/** A record: its id, last action and time, its JSON (with `_nango_metadata`) opening under it. */
function recordRow(r: StoredRecord): Node {
  const meta = r._nango_metadata;
  return h(
    "details",
    { class: "record", "data-record-id": r.id },
    h(
      "summary",
      null,
      h("code", null, r.id),
      " ",
      badge(meta.last_action, BADGE[meta.last_action]),
      " ",
      h("span", { class: "muted" }, when(meta.last_modified_at)),
    ),
    jsonBlock(r),
  );
}

/** Links to the first page (when not on it) and the next one (or the end of the records). */
function recordsPager(
  key: string,
  connectionId: string,
  model: string,
  view: { variant: string | undefined; filter: string | undefined },
  cursor: string | undefined,
  nextCursor: string | null,
): Node {
  return h(
    "div",
    { class: "row pager" },
    cursor ? h("a", { href: recordsLink(key, connectionId, model, view) }, "First page") : null,
    nextCursor
      ? h(
          "a",
          { id: "records-next", href: recordsLink(key, connectionId, model, { ...view, cursor: nextCursor }) },
          "Next page",
        )
      : h("span", { class: "muted" }, "End of the records."),
  );
}
