import { api, errorBox, qs } from "../api.ts";
import { badge, h, hashLink, hashQuery, replace, when } from "../dom.ts";
import type { Integration, Message, Provider } from "../types.ts";
import { channelKinds, MESSAGE_TYPES, messageConnection, messageSummary } from "./message-summary.ts";

const STATUSES = ["pending", "succeeded", "failed", "exhausted"];

function options(values: string[], current: string, all: string) {
  return [h("option", { value: "" }, all), values.map((v) => h("option", { value: v, selected: v === current }, v))];
}

function replayFailedForm(): HTMLElement {
  const since = h("input", { type: "datetime-local", id: "replay-since" });
  since.value = new Date(Date.now() - 24 * 3_600_000 - new Date().getTimezoneOffset() * 60_000)
    .toISOString()
    .slice(0, 16);
  const out = h("span", { id: "replay-failed-result" });
  const submit = async (e: Event) => {
    e.preventDefault();
    replace(out);
    try {
      const { data } = await api<{ data: { replayed: number } }>("POST", "/webhook-messages/replay-failed", {
        since: new Date(since.value).toISOString(),
      });
      replace(out, h("span", { class: "ok" }, `${data.replayed} message(s) scheduled again.`));
    } catch (err) {
      replace(out, errorBox(err));
    }
  };
  return h(
    "form",
    { class: "row", onsubmit: submit },
    h("span", null, "Replay every failed or exhausted message since"),
    since,
    h("button", { type: "submit", class: "secondary" }, "Replay failed"),
    out,
  );
}

/** The log's filters, as the page's hash query carries them. */
interface DeliveryFilter {
  integration: string;
  connection: string;
  status: string;
  type: string;
  unmatched: boolean;
  cursor: string;
}

/** #/deliveries?integration=&connection=&status=&type=&unmatched=&cursor=: the forwarded-webhook log. */
export async function deliveriesPage(): Promise<Node> {
  const q = hashQuery();
  const f: DeliveryFilter = {
    integration: q.get("integration") ?? "",
    connection: q.get("connection") ?? "",
    status: q.get("status") ?? "",
    type: q.get("type") ?? "",
    unmatched: q.get("unmatched") === "true",
    cursor: q.get("cursor") ?? "",
  };
  const [{ data: integrations }, { data: providers }, res] = await Promise.all([
    api<{ data: Integration[] }>("GET", "/integrations"),
    api<{ data: Provider[] }>("GET", "/providers"),
    api<{ data: Message[]; next_cursor: string | null }>(
      "GET",
      `/webhook-messages${qs({ provider_config_key: f.integration, connection_id: f.connection, status: f.status, type: f.type, unmatched: f.unmatched ? "true" : undefined, cursor: f.cursor, limit: 50 })}`,
    ),
  ]);
  const filter = filterForm(f, integrations);
  return h(
    "section",
    null,
    h("h1", null, "Deliveries"),
    filter.form,
    res.data.length === 0
      ? h("p", { class: "card muted", id: "no-deliveries" }, "No message matches.")
      : deliveriesTable(res.data, channelKinds(integrations, providers)),
    h(
      "p",
      { class: "row pager" },
      f.cursor ? h("a", { href: filter.link() }, "← Newest") : null,
      res.next_cursor ? h("a", { href: filter.link(res.next_cursor), id: "older" }, "Older →") : null,
    ),
    h("div", { class: "card" }, replayFailedForm()),
  );
}

/** The filter form, and the link to the log as it filters (from `cursor` on when given). */
function filterForm(f: DeliveryFilter, integrations: Integration[]) {
  const integration = h(
    "select",
    { id: "filter-integration" },
    options(
      integrations.map((i) => i.unique_key),
      f.integration,
      "All integrations",
    ),
  );
  const connection = h("input", {
    type: "search",
    id: "filter-connection",
    value: f.connection,
    placeholder: "Connection id",
  });
  const status = h("select", { id: "filter-status" }, options(STATUSES, f.status, "Any status"));
  const type = h("select", { id: "filter-type" }, options(MESSAGE_TYPES, f.type, "Any type"));
  const unmatched = h("input", { type: "checkbox", id: "filter-unmatched", checked: f.unmatched });
  const link = (cursor?: string) =>
    hashLink("/deliveries", {
      integration: integration.value,
      connection: connection.value.trim(),
      status: status.value,
      type: type.value,
      unmatched: unmatched.checked ? "true" : undefined,
      cursor,
    });
  const apply = (e: Event) => {
    e.preventDefault();
    location.hash = link();
  };
  unmatched.addEventListener("change", apply);
  const form = h(
    "form",
    { class: "card row", id: "deliveries-filter", onsubmit: apply },
    integration,
    connection,
    status,
    type,
    h("label", { class: "switch" }, unmatched, "Unmatched notifications only"),
    h("button", { type: "submit" }, "Filter"),
    h("a", { href: "#/deliveries" }, "Clear"),
  );
  return { form, link };
}

function deliveriesTable(messages: Message[], kinds: Map<string, string>): HTMLElement {
  const columns = ["Created", "Type", "What", "Integration", "Connection", "Status", "Attempts", "Last error"];
  return h(
    "table",
    { id: "deliveries" },
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        columns.map((t) => h("th", null, t)),
      ),
    ),
    h(
      "tbody",
      null,
      messages.map((m) => messageRow(m, kinds)),
    ),
  );
}

function messageRow(m: Message, kinds: Map<string, string>): HTMLElement {
  return h(
    "tr",
    { "data-message-id": m.id, "data-status": m.status },
    h("td", null, h("a", { href: `#/deliveries/${encodeURIComponent(m.id)}` }, when(m.created_at))),
    h("td", null, m.type),
    h("td", { class: "message-summary" }, messageSummary(m, kinds)),
    h("td", null, m.provider_config_key ?? "—"),
    h("td", null, messageConnection(m)),
    h("td", null, badge(m.status)),
    h("td", null, String(m.attempt_count)),
    h("td", { class: "muted" }, m.last_error ?? ""),
  );
}
