import { h } from "../dom.ts";
import type { Overview } from "./overview-types.ts";
import { type ChartOptions, svgChart } from "./svg-chart.ts";

type SeriesValues = Partial<Record<string, (number | null)[]>>;

/** One chart of the overview: its series as `[key, label, colour]`, their values read by key from `values`. */
interface OverviewChart extends Pick<ChartOptions, "id" | "title" | "kind" | "unit"> {
  values: (o: Overview) => SeriesValues;
  series: [key: string, label: string, color: string][];
  legendFigures?: (o: Overview) => Record<string, string>;
}

const msText = (v: number | null) => (v === null ? "—" : `${Math.round(v)} ms`);

const CHARTS: OverviewChart[] = [
  {
    id: "proxy",
    title: "Proxy calls by status",
    kind: "stacked",
    values: (o) => o.proxy_calls,
    series: [
      ["2xx", "2xx", "c-ok"],
      ["3xx", "3xx", "c-info"],
      ["4xx", "4xx", "c-warn"],
      ["5xx", "5xx", "c-bad"],
      ["error", "no answer", "c-dark"],
    ],
  },
  {
    id: "latency",
    title: "Upstream latency",
    kind: "lines",
    unit: " ms",
    values: (o) => o.proxy_latency_ms,
    series: [
      ["p50", "p50", "c-info"],
      ["p95", "p95", "c-warn"],
    ],
    legendFigures: ({ totals }) => ({
      p50: msText(totals.proxy_latency_ms.p50),
      p95: msText(totals.proxy_latency_ms.p95),
    }),
  },
  {
    id: "notifications",
    title: "Notifications",
    kind: "lines",
    values: (o) => o.notifications,
    series: [
      ["received", "received", "c-info"],
      ["matched", "matched", "c-ok"],
      ["forwarded", "forwarded", "c-violet"],
      ["refused", "refused", "c-bad"],
    ],
  },
  {
    id: "deliveries",
    title: "Webhook deliveries",
    kind: "stacked",
    values: (o) => o.deliveries,
    series: [
      ["succeeded", "succeeded", "c-ok"],
      ["failed", "failed (retried)", "c-warn"],
      ["exhausted", "exhausted", "c-bad"],
    ],
  },
  {
    id: "runs",
    title: "Sync and action runs",
    kind: "stacked",
    values: ({ runs: { sync, action } }) => ({
      "sync-succeeded": sync.succeeded,
      "sync-failed": sync.failed,
      "action-succeeded": action.succeeded,
      "action-failed": action.failed,
    }),
    series: [
      ["sync-succeeded", "sync ok", "c-ok"],
      ["sync-failed", "sync failed", "c-bad"],
      ["action-succeeded", "action ok", "c-info"],
      ["action-failed", "action failed", "c-warn"],
    ],
  },
  {
    id: "refresh",
    title: "Token refresh failures",
    kind: "stacked",
    values: (o) => ({ failed: o.refresh_failures }),
    series: [["failed", "failed", "c-bad"]],
  },
];

/** The overview's charts: proxy calls and latency, notifications, deliveries, runs, refresh failures. */
export function overviewCharts(o: Overview): HTMLElement {
  return h(
    "div",
    { class: "charts" },
    CHARTS.map((chart) => {
      const values = chart.values(o);
      return svgChart({
        id: chart.id,
        title: chart.title,
        kind: chart.kind,
        unit: chart.unit,
        times: o.times,
        // A series the overview leaves out (nothing of that kind happened) is drawn as zeros.
        series: chart.series.map(([key, label, color]) => ({
          key,
          label,
          color,
          values: values[key] ?? o.times.map(() => 0),
        })),
        legendFigures: chart.legendFigures?.(o),
      });
    }),
  );
}
