import { api, qs } from "../api.ts";
import { h, hashLink, hashQuery } from "../dom.ts";
import { overviewCharts } from "./overview-charts.ts";
import type { Overview } from "./overview-types.ts";
import { troubleSection } from "./trouble-section.ts";

const PERIODS = [
  ["hour", "Last hour"],
  ["day", "Last day"],
  ["week", "Last week"],
] as const;

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

/** #/overview?period=hour|day|week: the charts of what Junction did, and what is in trouble under them. */
export async function overviewPage(): Promise<Node> {
  const asked = hashQuery().get("period") ?? "hour";
  const period = PERIODS.some(([p]) => p === asked) ? asked : "hour";
  const { data: o } = await api<{ data: Overview }>("GET", `/overview${qs({ period })}`);
  const switcher = h(
    "nav",
    { class: "segmented", id: "period", "aria-label": "Period" },
    PERIODS.map(([p, label]) =>
      h("a", { href: hashLink("/overview", { period: p }), "aria-current": p === period ? "page" : false }, label),
    ),
  );
  const header = h("div", { class: "page-head" }, h("h1", null, "Overview"), switcher);
  const trouble = troubleSection(o);
  if (isEmpty(o)) {
    const label = PERIODS.find(([p]) => p === period)?.[1].toLowerCase() ?? period;
    return h(
      "section",
      { id: "overview", "data-empty": "true" },
      header,
      h(
        "div",
        { class: "card empty", id: "overview-empty" },
        h("h2", null, `Nothing has happened in the ${label} yet`),
        h(
          "p",
          null,
          "Proxy calls, notifications, webhook deliveries, script runs and token refresh failures show here as they happen, a few seconds later. Create an integration and a connection, then call the proxy or send a notification.",
        ),
        h("p", null, h("a", { href: "#/integrations" }, "Go to Integrations")),
      ),
      trouble,
    );
  }
  return h("section", { id: "overview", "data-empty": "false" }, header, overviewCharts(o), trouble);
}

function isEmpty(o: Overview): boolean {
  const t = o.totals;
  const runs = Object.values(t.runs).reduce((s, r) => s + r.succeeded + r.failed, 0);
  return (
    sum(Object.values(t.proxy_calls)) +
      sum(Object.values(t.notifications)) +
      sum(Object.values(t.deliveries)) +
      runs +
      t.refresh_failures ===
      0 && o.trouble.connections.length + o.trouble.integrations.length === 0
  );
}
