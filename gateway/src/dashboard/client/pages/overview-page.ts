import { api, qs } from "../api.ts";
import { connectionLink, h, hashLink, hashQuery } from "../dom.ts";
import type { Overview, TroubleCounts } from "./overview-types.ts";
import { svgChart } from "./svg-chart.ts";

const PERIODS = [
  ["hour", "Last hour"],
  ["day", "Last day"],
  ["week", "Last week"],
] as const;

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
const msText = (v: number | null) => (v === null ? "—" : `${Math.round(v)} ms`);

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
  return h("section", { id: "overview", "data-empty": "false" }, header, charts(o), trouble);
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

function charts(o: Overview): HTMLElement {
  const times = o.times;
  const line = (values: number[] | undefined) => values ?? times.map(() => 0);
  return h(
    "div",
    { class: "charts" },
    svgChart({
      id: "proxy",
      title: "Proxy calls by status",
      kind: "stacked",
      times,
      series: [
        { key: "2xx", label: "2xx", values: line(o.proxy_calls["2xx"]), color: "c-ok" },
        { key: "3xx", label: "3xx", values: line(o.proxy_calls["3xx"]), color: "c-info" },
        { key: "4xx", label: "4xx", values: line(o.proxy_calls["4xx"]), color: "c-warn" },
        { key: "5xx", label: "5xx", values: line(o.proxy_calls["5xx"]), color: "c-bad" },
        { key: "error", label: "no answer", values: line(o.proxy_calls.error), color: "c-dark" },
      ],
    }),
    svgChart({
      id: "latency",
      title: "Upstream latency",
      kind: "lines",
      unit: " ms",
      times,
      series: [
        { key: "p50", label: "p50", values: o.proxy_latency_ms.p50, color: "c-info" },
        { key: "p95", label: "p95", values: o.proxy_latency_ms.p95, color: "c-warn" },
      ],
      legendFigures: { p50: msText(o.totals.proxy_latency_ms.p50), p95: msText(o.totals.proxy_latency_ms.p95) },
    }),
    svgChart({
      id: "notifications",
      title: "Notifications",
      kind: "lines",
      times,
      series: [
        { key: "received", label: "received", values: line(o.notifications.received), color: "c-info" },
        { key: "matched", label: "matched", values: line(o.notifications.matched), color: "c-ok" },
        { key: "forwarded", label: "forwarded", values: line(o.notifications.forwarded), color: "c-violet" },
        { key: "refused", label: "refused", values: line(o.notifications.refused), color: "c-bad" },
      ],
    }),
    svgChart({
      id: "deliveries",
      title: "Webhook deliveries",
      kind: "stacked",
      times,
      series: [
        { key: "succeeded", label: "succeeded", values: line(o.deliveries.succeeded), color: "c-ok" },
        { key: "failed", label: "failed (retried)", values: line(o.deliveries.failed), color: "c-warn" },
        { key: "exhausted", label: "exhausted", values: line(o.deliveries.exhausted), color: "c-bad" },
      ],
    }),
    svgChart({
      id: "runs",
      title: "Sync and action runs",
      kind: "stacked",
      times,
      series: [
        { key: "sync-succeeded", label: "sync ok", values: o.runs.sync.succeeded, color: "c-ok" },
        { key: "sync-failed", label: "sync failed", values: o.runs.sync.failed, color: "c-bad" },
        { key: "action-succeeded", label: "action ok", values: o.runs.action.succeeded, color: "c-info" },
        { key: "action-failed", label: "action failed", values: o.runs.action.failed, color: "c-warn" },
      ],
    }),
    svgChart({
      id: "refresh",
      title: "Token refresh failures",
      kind: "stacked",
      times,
      series: [{ key: "failed", label: "failed", values: o.refresh_failures, color: "c-bad" }],
    }),
  );
}

const TROUBLE_COLUMNS: [keyof TroubleCounts, string][] = [
  ["refresh_failures", "Refresh failures"],
  ["failing_deliveries", "Failing deliveries"],
  ["failed_runs", "Failed runs"],
  ["failing_channels", "Expired channels"],
];

const integrationLink = (key: string) => h("a", { href: hashLink(`/integrations/${encodeURIComponent(key)}`) }, key);
const countCell = (n: number) => h("td", { class: n > 0 ? "num bad-text" : "num muted" }, String(n));

function troubleSection(o: Overview): HTMLElement {
  const { connections, integrations, unavailable } = o.trouble;
  const head = (first: string[], last: string[] = []) =>
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        [...first, ...TROUBLE_COLUMNS.map(([, t]) => t), ...last].map((t) => h("th", null, t)),
      ),
    );
  return h(
    "section",
    { id: "trouble" },
    h("h2", null, "In trouble"),
    unavailable.length > 0
      ? h(
          "p",
          { class: "hint", id: "trouble-unavailable" },
          `Not answering, so missing here: ${unavailable.join(", ")}.`,
        )
      : null,
    h("h3", null, "Integrations"),
    integrations.length === 0
      ? h("p", { class: "muted", id: "trouble-integrations-none" }, "No integration in trouble.")
      : h(
          "div",
          { class: "table-scroll" },
          h(
            "table",
            { id: "trouble-integrations" },
            head(["Integration", "Connections"]),
            h(
              "tbody",
              null,
              integrations.map((i) =>
                h(
                  "tr",
                  { "data-integration": i.provider_config_key },
                  h("td", null, integrationLink(i.provider_config_key)),
                  h("td", { class: "num" }, String(i.connections)),
                  TROUBLE_COLUMNS.map(([k]) => countCell(i[k])),
                ),
              ),
            ),
          ),
        ),
    h("h3", null, "Connections"),
    connections.length === 0
      ? h("p", { class: "muted", id: "trouble-connections-none" }, "No connection in trouble.")
      : h(
          "div",
          { class: "table-scroll" },
          h(
            "table",
            { id: "trouble-connections" },
            head(["Connection", "Integration"], ["Last error"]),
            h(
              "tbody",
              null,
              connections.map((c) =>
                h(
                  "tr",
                  { "data-connection": `${c.provider_config_key}/${c.connection_id}` },
                  h("td", null, connectionLink(c.provider_config_key, c.connection_id)),
                  h("td", null, integrationLink(c.provider_config_key)),
                  TROUBLE_COLUMNS.map(([k]) => countCell(c[k])),
                  h("td", { class: "last-error" }, c.last_error || "—"),
                ),
              ),
            ),
          ),
        ),
  );
}
