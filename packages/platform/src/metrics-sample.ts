import { Counter, type MetricsRegistry } from "./metrics.ts";

/** A counter's series at one moment. */
export interface CounterSample {
  labels: string[];
  value: number;
}

/** A histogram's series at one moment: per-bucket counts (not cumulative), the buckets' upper bounds. */
export interface HistogramSample {
  labels: string[];
  bounds: number[];
  counts: number[];
  count: number;
}

/**
 * The named counters and histograms of one process's registry at one moment: what the overview's
 * sampler turns into deltas. Plain data, so that it crosses a process boundary as JSON.
 */
export interface MetricsSample {
  counters: Record<string, CounterSample[]>;
  histograms: Record<string, HistogramSample[]>;
}

/** The current values of the metrics named in `names` (those not registered are left out). */
export function sampleRegistry(registry: MetricsRegistry, names: readonly string[]): MetricsSample {
  const sample: MetricsSample = { counters: {}, histograms: {} };
  for (const name of names) {
    const metric = registry.find(name);
    if (metric === undefined) continue;
    if (metric instanceof Counter) {
      sample.counters[name] = metric.values();
      continue;
    }
    const bounds = [...metric.buckets];
    sample.histograms[name] = metric
      .values()
      .map((s) => ({ labels: s.labels, bounds, counts: s.counts, count: s.count }));
  }
  return sample;
}
