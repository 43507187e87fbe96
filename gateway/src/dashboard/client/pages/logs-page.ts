import { api, qs } from "../api.ts";
import { badge, fields, h, hashLink, hashQuery, replace, when } from "../dom.ts";
import { FILTERS, type Filters, filterControls, filterForm, filterLink } from "./logs-filter.ts";
import { type OperationTotals, tookCell, tookFields } from "./operation-totals.ts";

/** A successful proxy call's total carries a count and latency bounds: see operation-totals.ts. */
interface Operation extends OperationTotals {
  id: string;
  kind: string;
  status: string;
  started_at: string | null;
  duration_ms: number;
  integration: string | null;
  connection: string | null;
  end_user: string | null;
  tags: string[];
  title: string;
  message_count: number;
}
interface OperationMessage {
  at: string | null;
  level: string;
  text: string;
  fields: Record<string, unknown> | null;
}

function rows(ops: Operation[]): HTMLElement {
  if (ops.length === 0) return h("p", { class: "card muted", id: "no-operations" }, "No operation matches.");
  return h(
    "table",
    { id: "operations" },
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        ["Started", "Kind", "What", "Integration", "Connection", "Status", "Took"].map((t) => h("th", null, t)),
      ),
    ),
    h(
      "tbody",
      null,
      ops.map((o) =>
        h(
          "tr",
          { "data-operation-id": o.id, "data-status": o.status },
          h("td", null, h("a", { href: `#/logs/${encodeURIComponent(o.id)}` }, when(o.started_at))),
          h("td", null, o.kind),
          h("td", { class: "message-summary" }, o.title),
          h("td", null, o.integration ?? "—"),
          h("td", null, o.connection ?? "—"),
          h("td", null, badge(o.status)),
          h("td", null, tookCell(o)),
        ),
      ),
    ),
  );
}

/** Live tail: the newest page again every two seconds while the box is ticked and this page is shown. */
function startLiveTail(list: HTMLElement, path: string): void {
  const timer = setInterval(async () => {
    if (!list.isConnected) return clearInterval(timer);
    const next = await api<{ data: Operation[] }>("GET", path).catch(() => undefined);
    if (next && list.isConnected) replace(list, rows(next.data));
  }, 2000);
}

/** #/logs?kind=&status=&integration=&connection=&end_user=&tag=&q=&cursor=&live=: the operations log. */
export async function logsPage(): Promise<Node> {
  const q = hashQuery();
  const f = Object.fromEntries(FILTERS.map((k) => [k, q.get(k) ?? ""])) as Filters;
  const cursor = q.get("cursor") ?? "";
  const path = `/logs/operations${qs({ ...f, cursor, limit: 50 })}`;
  const res = await api<{ data: Operation[]; next_cursor: string | null }>("GET", path);
  const controls = filterControls(f, q.get("live") === "true" && !cursor);
  const link = (next?: string) => filterLink(controls, next);
  const apply = (e: Event) => {
    e.preventDefault();
    location.hash = link();
  };
  controls.live.addEventListener("change", apply);
  const list = h("div", { id: "operations-list" }, rows(res.data));
  if (controls.live.checked) startLiveTail(list, path);
  return h(
    "section",
    null,
    h("h1", null, "Logs"),
    filterForm(controls, apply),
    list,
    h(
      "p",
      { class: "row pager" },
      cursor ? h("a", { href: link() }, "← Newest") : null,
      res.next_cursor ? h("a", { href: link(res.next_cursor), id: "older" }, "Older →") : null,
    ),
  );
}

/** #/logs/{id}: one operation with its messages. */
export async function operationPage(id: string): Promise<Node> {
  const { data: o } = await api<{ data: Operation & { messages: OperationMessage[] } }>(
    "GET",
    `/logs/operations/${encodeURIComponent(id)}`,
  );
  const byConnection =
    o.integration && o.connection ? hashLink("/logs", { integration: o.integration, connection: o.connection }) : null;
  return h(
    "section",
    { id: "operation" },
    h("p", null, h("a", { href: "#/logs" }, "← Logs")),
    h("h1", null, o.title || o.kind),
    h(
      "div",
      { class: "card" },
      fields([
        ["Kind", o.kind],
        ["Status", badge(o.status)],
        ["Started", when(o.started_at)],
        ...tookFields(o),
        ["Integration", o.integration ?? "—"],
        ["Connection", byConnection ? h("a", { href: byConnection }, o.connection ?? "") : "—"],
        ["End user", o.end_user ?? "—"],
        ["Tags", o.tags.length ? o.tags.join(", ") : "—"],
        ["Id", o.id],
      ]),
    ),
    h("h2", null, "Messages"),
    o.messages.length === 0
      ? h(
          "p",
          { class: "card muted", id: "no-messages" },
          !o.latency_ms
            ? "No message."
            : o.kind === "notification_received"
              ? "A total keeps its notifications' count and receipt time, no message: each one's delivery names it."
              : "A total keeps its calls' count and latency, no message.",
        )
      : messagesTable(o.messages),
  );
}

function messagesTable(messages: OperationMessage[]): HTMLElement {
  return h(
    "table",
    { id: "operation-messages" },
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        ["At", "Level", "Message"].map((t) => h("th", null, t)),
      ),
    ),
    h(
      "tbody",
      null,
      messages.map((m) =>
        h(
          "tr",
          { "data-level": m.level },
          h("td", null, when(m.at)),
          h("td", null, badge(m.level)),
          h("td", null, m.text, m.fields ? h("pre", null, JSON.stringify(m.fields, null, 2)) : null),
        ),
      ),
    ),
  );
}
