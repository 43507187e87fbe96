import { type BucketRow, HOUR_MS, MINUTE_MS, type OverviewStore } from "./overview-store.ts";

export const PERIODS = ["hour", "day", "week"] as const;
export type Period = (typeof PERIODS)[number];

/** Each period: the buckets it reads and the width of one point of its charts. */
const SHAPES: Record<Period, { resolutionMs: number; stepMs: number; points: number }> = {
  hour: { resolutionMs: MINUTE_MS, stepMs: MINUTE_MS, points: 60 },
  day: { resolutionMs: MINUTE_MS, stepMs: 15 * MINUTE_MS, points: 96 },
  week: { resolutionMs: HOUR_MS, stepMs: 3 * HOUR_MS, points: 56 },
};

const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx", "error"] as const;
const NOTIFICATION_OUTCOMES = ["received", "matched", "unmatched", "forwarded", "refused", "dropped", "duplicate"];
const DELIVERY_OUTCOMES = ["succeeded", "failed", "exhausted"] as const;
const RUN_KINDS = ["sync", "action", "other"] as const;

type Lines = Record<string, number[]>;
type RunLines = Record<(typeof RUN_KINDS)[number], { succeeded: number[]; failed: number[] }>;

/** The charts' series of one period: one value per point, oldest first. */
export interface OverviewSeriesAnswer {
  period: Period;
  step_seconds: number;
  from: string;
  to: string;
  times: string[];
  proxy_calls: Lines;
  proxy_latency_ms: { p50: (number | null)[]; p95: (number | null)[] };
  notifications: Lines;
  deliveries: Lines;
  runs: RunLines;
  refresh_failures: number[];
  /** Everything of the period together (latency over all of its calls). */
  totals: {
    proxy_calls: Record<string, number>;
    proxy_latency_ms: { p50: number | null; p95: number | null };
    notifications: Record<string, number>;
    deliveries: Record<string, number>;
    runs: Record<string, { succeeded: number; failed: number }>;
    refresh_failures: number;
  };
}

const zeros = (n: number) => new Array<number>(n).fill(0);
const linesOf = (labels: readonly string[], n: number): Lines => Object.fromEntries(labels.map((l) => [l, zeros(n)]));

/**
 * The `p`-th quantile (0..1) of a latency histogram in milliseconds: linear within the bucket that holds
 * it; one beyond the last bound is reported at that bound. Null with no observations.
 */
export function quantileMs(buckets: ReadonlyMap<number, number>, p: number): number | null {
  const bounds = [...buckets.keys()].sort((a, b) => a - b);
  const total = bounds.reduce((s, b) => s + (buckets.get(b) ?? 0), 0);
  if (total === 0) return null;
  const rank = p * total;
  let seen = 0;
  let lower = 0;
  for (const bound of bounds) {
    const n = buckets.get(bound) ?? 0;
    if (n > 0 && seen + n >= rank) {
      if (!Number.isFinite(bound)) return Math.round(lower * 1000);
      return Math.round((lower + ((bound - lower) * (rank - seen)) / n) * 100_000) / 100;
    }
    seen += n;
    if (Number.isFinite(bound)) lower = bound;
  }
  return Math.round(lower * 1000);
}

function addLatency(hist: Map<number, number>, label: string, n: number): void {
  const bound = label === "+Inf" ? Number.POSITIVE_INFINITY : Number(label);
  if (!Number.isNaN(bound)) hist.set(bound, (hist.get(bound) ?? 0) + n);
}

/** The period's series, read from the store's buckets ending with the point that holds `nowMs`. */
export async function overviewSeries(
  store: OverviewStore,
  period: Period,
  nowMs: number,
): Promise<OverviewSeriesAnswer> {
  const { resolutionMs, stepMs, points } = SHAPES[period];
  const toMs = nowMs - (nowMs % stepMs) + stepMs;
  const fromMs = toMs - points * stepMs;
  const rows = await store.read(resolutionMs, fromMs, toMs);
  const a: OverviewSeriesAnswer = {
    period,
    step_seconds: stepMs / 1000,
    from: new Date(fromMs).toISOString(),
    to: new Date(toMs).toISOString(),
    times: Array.from({ length: points }, (_, i) => new Date(fromMs + i * stepMs).toISOString()),
    proxy_calls: linesOf(STATUS_CLASSES, points),
    proxy_latency_ms: { p50: [], p95: [] },
    notifications: linesOf(NOTIFICATION_OUTCOMES, points),
    deliveries: linesOf(DELIVERY_OUTCOMES, points),
    runs: Object.fromEntries(
      RUN_KINDS.map((k) => [k, { succeeded: zeros(points), failed: zeros(points) }]),
    ) as RunLines,
    refresh_failures: zeros(points),
    totals: {
      proxy_calls: {},
      proxy_latency_ms: { p50: null, p95: null },
      notifications: {},
      deliveries: {},
      runs: {},
      refresh_failures: 0,
    },
  };
  const perPoint = Array.from({ length: points }, () => new Map<number, number>());
  const overall = new Map<number, number>();
  for (const row of rows) place(a, row, Math.floor((row.startMs - fromMs) / stepMs), perPoint, overall);
  a.proxy_latency_ms.p50 = perPoint.map((h) => quantileMs(h, 0.5));
  a.proxy_latency_ms.p95 = perPoint.map((h) => quantileMs(h, 0.95));
  a.totals = totalsOf(a, overall);
  return a;
}

function place(
  a: OverviewSeriesAnswer,
  row: BucketRow,
  i: number,
  perPoint: Map<number, number>[],
  all: Map<number, number>,
) {
  const { series, label, value } = row;
  if (i < 0 || i >= perPoint.length) return;
  if (series === "latency") {
    addLatency(perPoint[i] as Map<number, number>, label, value);
    addLatency(all, label, value);
    return;
  }
  const line = lineOf(a, series, label);
  if (line) line[i] = (line[i] ?? 0) + value;
}

function lineOf(a: OverviewSeriesAnswer, series: string, label: string): number[] | undefined {
  if (series === "proxy") return a.proxy_calls[label];
  if (series === "notifications") return a.notifications[label];
  if (series === "deliveries") return a.deliveries[label];
  if (series === "refreshes") return label === "failed" ? a.refresh_failures : undefined;
  if (series === "runs") {
    const [kind = "", outcome] = label.split(":");
    const lines = a.runs[(RUN_KINDS as readonly string[]).includes(kind) ? (kind as "sync") : "other"];
    return outcome === "succeeded" ? lines.succeeded : lines.failed;
  }
  return undefined;
}

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
const sums = (lines: Lines) => Object.fromEntries(Object.entries(lines).map(([k, xs]) => [k, sum(xs)]));

function totalsOf(a: OverviewSeriesAnswer, overall: Map<number, number>): OverviewSeriesAnswer["totals"] {
  return {
    proxy_calls: sums(a.proxy_calls),
    proxy_latency_ms: { p50: quantileMs(overall, 0.5), p95: quantileMs(overall, 0.95) },
    notifications: sums(a.notifications),
    deliveries: sums(a.deliveries),
    runs: Object.fromEntries(
      Object.entries(a.runs).map(([k, v]) => [k, { succeeded: sum(v.succeeded), failed: sum(v.failed) }]),
    ),
    refresh_failures: sum(a.refresh_failures),
  };
}
