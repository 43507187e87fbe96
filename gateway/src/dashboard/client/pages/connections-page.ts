import { api, qs } from "../api.ts";
import { badge, connectionLink, h, hashLink, hashQuery, when } from "../dom.ts";
import type { ConnectionListItem, Integration, Page } from "../types.ts";

const PAGE_SIZE = 20;

/** #/connections?integration=&search=&page=: every connection, searchable, a page at a time. */
export async function connectionsPage(): Promise<Node> {
  const q = hashQuery();
  const integration = q.get("integration") ?? "";
  const search = q.get("search") ?? "";
  const pageNo = Math.max(0, Number(q.get("page") ?? "0") || 0);
  const [{ data: integrations }, res] = await Promise.all([
    api<{ data: Integration[] }>("GET", "/integrations"),
    api<{ connections: ConnectionListItem[]; pagination: Page }>(
      "GET",
      `/connections${qs({ integrationId: integration, search, limit: PAGE_SIZE, page: pageNo })}`,
    ),
  ]);
  const { form, go } = filterForm(integrations, integration, search);
  const { total, has_more } = res.pagination;
  const from = total === 0 ? 0 : pageNo * PAGE_SIZE + 1;
  return h(
    "section",
    null,
    h("h1", null, "Connections"),
    form,
    res.connections.length === 0
      ? h(
          "p",
          { class: "card muted", id: "no-connections" },
          search || integration
            ? "No connection matches."
            : "No connection yet. Use “Test connection” on an integration, or connect users with a connect session.",
        )
      : connectionsTable(res.connections),
    h(
      "p",
      { class: "row pager" },
      h(
        "span",
        { class: "muted", id: "connections-count" },
        `${from}–${pageNo * PAGE_SIZE + res.connections.length} of ${total}`,
      ),
      pageNo > 0 ? h("a", { href: go(pageNo - 1), id: "prev-page" }, "← Newer") : null,
      has_more ? h("a", { href: go(pageNo + 1), id: "next-page" }, "Older →") : null,
    ),
  );
}

/** The integration and search filter, and the link to a page of the list as it filters. */
function filterForm(integrations: Integration[], integration: string, search: string) {
  const select = h(
    "select",
    { id: "filter-integration" },
    h("option", { value: "" }, "All integrations"),
    integrations.map((i) => h("option", { value: i.unique_key, selected: i.unique_key === integration }, i.unique_key)),
  );
  const searchBox = h("input", {
    type: "search",
    id: "search",
    value: search,
    placeholder: "Connection id contains…",
  });
  const go = (p: number) =>
    hashLink("/connections", { integration: select.value, search: searchBox.value.trim(), page: p || undefined });
  const form = h(
    "form",
    {
      class: "row card",
      id: "connections-filter",
      onsubmit: (e: Event) => {
        e.preventDefault();
        location.hash = go(0);
      },
    },
    select,
    searchBox,
    h("button", { type: "submit" }, "Search"),
  );
  return { form, go };
}

function connectionsTable(connections: ConnectionListItem[]): HTMLElement {
  return h(
    "table",
    { id: "connections" },
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        ["Connection id", "Integration", "End user", "Created", "Errors"].map((t) => h("th", null, t)),
      ),
    ),
    h("tbody", null, connections.map(connectionRow)),
  );
}

function connectionRow(c: ConnectionListItem): HTMLElement {
  return h(
    "tr",
    { "data-connection-id": c.connection_id },
    h("td", null, connectionLink(c.provider_config_key, c.connection_id)),
    h("td", null, c.provider_config_key),
    h(
      "td",
      null,
      c.end_user
        ? [c.end_user.display_name ?? "", " ", h("span", { class: "muted" }, c.end_user.email ?? c.end_user.id ?? "")]
        : "—",
    ),
    h("td", null, when(c.created)),
    h("td", null, c.errors.length > 0 ? badge(c.errors.map((e) => e.type).join(", "), "error") : "—"),
  );
}
