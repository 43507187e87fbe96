import { OPERATION_KINDS as KINDS, OPERATION_STATUSES as STATUSES } from "@junction/platform/operations/operation";
import { h, hashLink } from "../dom.ts";

/** The operations log's filters, as the page's query and the API's take them. */
export const FILTERS = ["kind", "status", "integration", "connection", "end_user", "tag", "q"] as const;

export type Filters = Record<(typeof FILTERS)[number], string>;

const select = (id: string, values: readonly string[], current: string, all: string) =>
  h(
    "select",
    { id },
    h("option", { value: "" }, all),
    values.map((v) => h("option", { value: v, selected: v === current }, v)),
  );

/** The filter form's controls, set to the filters the page was opened with. */
export interface FilterControls {
  kind: HTMLSelectElement;
  status: HTMLSelectElement;
  integration: HTMLInputElement;
  connection: HTMLInputElement;
  endUser: HTMLInputElement;
  tag: HTMLInputElement;
  search: HTMLInputElement;
  live: HTMLInputElement;
}

/** The controls of the filter form, set from the page's query. */
export function filterControls(f: Filters, live: boolean): FilterControls {
  const input = (id: string, value: string, placeholder: string) =>
    h("input", { type: "search", id, value, placeholder });
  return {
    kind: select("filter-kind", KINDS, f.kind, "Every kind"),
    status: select("filter-status", STATUSES, f.status, "Any status"),
    integration: input("filter-integration", f.integration, "Integration id"),
    connection: input("filter-connection", f.connection, "Connection id"),
    endUser: input("filter-end-user", f.end_user, "End user id"),
    tag: input("filter-tag", f.tag, "Tag"),
    search: input("filter-q", f.q, "Search messages"),
    live: h("input", { type: "checkbox", id: "live-tail", checked: live }),
  };
}

/** The #/logs link the controls say now; with `next`, the older page from that cursor (never live). */
export function filterLink(c: FilterControls, next?: string): string {
  return hashLink("/logs", {
    kind: c.kind.value,
    status: c.status.value,
    integration: c.integration.value.trim(),
    connection: c.connection.value.trim(),
    end_user: c.endUser.value.trim(),
    tag: c.tag.value.trim(),
    q: c.search.value.trim(),
    cursor: next,
    live: c.live.checked && !next ? "true" : undefined,
  });
}

/** The filter form: its controls, the live tail switch, Filter and Clear. */
export function filterForm(c: FilterControls, apply: (e: Event) => void): HTMLFormElement {
  return h(
    "form",
    { class: "card row", id: "logs-filter", onsubmit: apply },
    [c.kind, c.status, c.integration, c.connection, c.endUser, c.tag, c.search],
    h("label", { class: "switch" }, c.live, "Live tail"),
    h("button", { type: "submit" }, "Filter"),
    h("a", { href: "#/logs" }, "Clear"),
  );
}
