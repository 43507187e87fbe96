import type { MetricsSample } from "@junction/platform";

/** The metrics the overview reads from each process's registry. */
export const OVERVIEW_METRICS = [
  "junction_proxy_calls_total",
  "junction_proxy_upstream_seconds",
  "junction_notifications_total",
  "junction_delivery_rounds_total",
  "junction_script_runs_total",
  "junction_token_refreshes_total",
] as const;

/** The overview's series; a reading's key is `series\tlabel`. */
export type OverviewSeries = "proxy" | "latency" | "notifications" | "deliveries" | "runs" | "refreshes";

/** Running totals by `series\tlabel`, summed over the label values the overview does not keep (integration). */
export type Readings = Map<string, number>;

const key = (series: OverviewSeries, label: string) => `${series}\t${label}`;

/** A proxy call's status as its class: 2xx, 4xx… or "error" when no answer came back. */
function statusClass(status: string): string {
  return /^[1-5]\d\d$/.test(status) ? `${status[0]}xx` : "error";
}

/** Labels are only ever code-defined words; anything else is not kept (bounds the rows per bucket). */
const WORD = /^[a-z_]{1,32}$/;

function add(r: Readings, series: OverviewSeries, label: string, n: number): void {
  if (n === 0) return;
  const k = key(series, label);
  r.set(k, (r.get(k) ?? 0) + n);
}

/** A process's sample as running totals per overview series and label. */
export function readingsOf(sample: MetricsSample): Readings {
  const r: Readings = new Map();
  const c = sample.counters;
  for (const s of c.junction_proxy_calls_total ?? []) add(r, "proxy", statusClass(s.labels[1] ?? ""), s.value);
  for (const s of c.junction_notifications_total ?? []) {
    const outcome = s.labels[1] ?? "";
    if (WORD.test(outcome)) add(r, "notifications", outcome, s.value);
  }
  for (const s of c.junction_delivery_rounds_total ?? []) {
    if (WORD.test(s.labels[0] ?? "")) add(r, "deliveries", s.labels[0] as string, s.value);
  }
  for (const s of c.junction_script_runs_total ?? []) {
    const [kind = "", outcome = ""] = s.labels;
    if (WORD.test(kind) && WORD.test(outcome)) add(r, "runs", `${kind}:${outcome}`, s.value);
  }
  for (const s of c.junction_token_refreshes_total ?? []) {
    if (WORD.test(s.labels[1] ?? "")) add(r, "refreshes", s.labels[1] as string, s.value);
  }
  for (const s of sample.histograms.junction_proxy_upstream_seconds ?? []) {
    let counted = 0;
    for (const [i, bound] of s.bounds.entries()) {
      const n = s.counts[i] ?? 0;
      counted += n;
      add(r, "latency", String(bound), n);
    }
    add(r, "latency", "+Inf", s.count - counted);
  }
  return r;
}

/**
 * What happened between two readings of one process. A total lower than before means the process
 * restarted (its counters began again at zero): then its whole totals are what happened since.
 */
export function deltaOf(previous: Readings | undefined, current: Readings): Readings {
  let restarted = false;
  for (const [k, before] of previous ?? []) if ((current.get(k) ?? 0) < before) restarted = true;
  const d: Readings = new Map();
  for (const [k, v] of current) {
    const n = restarted ? v : v - (previous?.get(k) ?? 0);
    if (n > 0) d.set(k, n);
  }
  return d;
}

/** Splits a reading's key into its series and label. */
export function splitKey(k: string): [OverviewSeries, string] {
  const tab = k.indexOf("\t");
  return [k.slice(0, tab) as OverviewSeries, k.slice(tab + 1)];
}
