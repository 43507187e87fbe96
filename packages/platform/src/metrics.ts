/**
 * Metrics in the Prometheus text exposition format (version 0.0.4): counters, gauges and histograms
 * with labels, held by a registry that the process creates and hands to its services (never a module
 * singleton). A metric's series are found by one map lookup per label value, so an event costs those
 * lookups and an addition, and builds no string. Label values must never carry secrets (keys, tokens, query strings).
 */

/** Default latency buckets, in seconds (from 5 ms to 30 s). */
export const LATENCY_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type Kind = "counter" | "gauge" | "histogram";

interface Metric {
  readonly name: string;
  readonly kind: Kind;
  readonly help: string;
  readonly labelNames: readonly string[];
  write(lines: string[]): void;
}

const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** A label value as the format wants it: backslash, double quote and newline escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Number.POSITIVE_INFINITY) return "+Inf";
  if (v === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(v);
}

function labelText(names: readonly string[], values: readonly string[], extra?: string): string {
  const parts = names.map((n, i) => `${n}="${escapeLabelValue(values[i] ?? "")}"`);
  if (extra) parts.push(extra);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

/** The most label names a metric may have: events pass their values one by one (LabelledMetric.stateOf). */
export const MAX_LABELS = 4;

/** The first `given` of the label values as an array (a new series, or a wrong count to report). */
function valuesOf(given: number, a?: string, b?: string, c?: string, d?: string): string[] {
  return [a, b, c, d].slice(0, given) as string[];
}

interface Series<S> {
  values: readonly string[];
  state: S;
}

/** Series by their label values, one map level per label. */
type SeriesTree<S> = Map<string, SeriesTree<S> | Series<S>>;

abstract class LabelledMetric<S> implements Metric {
  /** Every series, in the order they were first seen (the exposition's order). */
  protected series: Series<S>[] = [];
  // Found by walking one map per label value rather than by the values joined: an event builds no
  // string (a joined key was a new string to hash on every request; ~0.1 µs an event in Bun).
  private tree: SeriesTree<S> = new Map();
  private unlabelled: Series<S> | undefined;
  abstract readonly kind: Kind;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  /**
   * The state of the series of label values passed one by one (at most MAX_LABELS; an absent one is
   * undefined): an event on a hot path builds no array of them (a rest parameter was one per event, ~60
   * bytes each, four per proxied request). Only a series seen for the first time takes the array path.
   */
  protected stateOf(a?: string, b?: string, c?: string, d?: string): S {
    const given = d !== undefined ? 4 : c !== undefined ? 3 : b !== undefined ? 2 : a !== undefined ? 1 : 0;
    if (given !== this.labelNames.length) return this.state(valuesOf(given, a, b, c, d));
    if (given === 0) {
      this.unlabelled ??= this.newSeries([]);
      return this.unlabelled.state;
    }
    let node = this.tree.get(a as string);
    if (given > 1) node = (node as SeriesTree<S> | undefined)?.get(b as string);
    if (given > 2) node = (node as SeriesTree<S> | undefined)?.get(c as string);
    if (given > 3) node = (node as SeriesTree<S> | undefined)?.get(d as string);
    return node !== undefined ? (node as Series<S>).state : this.state(valuesOf(given, a, b, c, d));
  }

  protected state(values: readonly string[]): S {
    const last = values.length - 1;
    if (last !== this.labelNames.length - 1) {
      throw new Error(`${this.name} takes ${this.labelNames.length} label values, got ${values.length}`);
    }
    if (last < 0) {
      this.unlabelled ??= this.newSeries(values);
      return this.unlabelled.state;
    }
    let level = this.tree;
    for (let i = 0; i < last; i++) {
      const value = values[i] as string;
      let next = level.get(value) as SeriesTree<S> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const value = values[last] as string;
    const found = level.get(value) as Series<S> | undefined;
    if (found !== undefined) return found.state;
    const series = this.newSeries(values);
    level.set(value, series);
    return series.state;
  }

  /** The series of these label values, if it was seen (never creates one). */
  protected find(values: readonly string[]): Series<S> | undefined {
    if (values.length !== this.labelNames.length) return undefined;
    if (values.length === 0) return this.unlabelled;
    let node: SeriesTree<S> | Series<S> | undefined = this.tree;
    for (const value of values) node = node instanceof Map ? node.get(value) : undefined;
    return node instanceof Map ? undefined : node;
  }

  /** Forgets every series. */
  protected clear(): void {
    this.series = [];
    this.tree = new Map();
    this.unlabelled = undefined;
  }

  private newSeries(values: readonly string[]): Series<S> {
    const series = { values: [...values], state: this.initial() };
    this.series.push(series);
    return series;
  }

  protected abstract initial(): S;
  abstract write(lines: string[]): void;
}

/** A value that only goes up (events, seconds spent). */
export class Counter extends LabelledMetric<{ v: number }> {
  readonly kind = "counter" as const;
  protected initial() {
    return { v: 0 };
  }
  /** Adds one to the series of these label values. */
  inc(a?: string, b?: string, c?: string, d?: string): void {
    this.stateOf(a, b, c, d).v += 1;
  }
  /** Adds `n` (≥ 0) to the series of these label values. */
  add(n: number, a?: string, b?: string, c?: string, d?: string): void {
    this.stateOf(a, b, c, d).v += n;
  }
  /** The series' value (tests). */
  value(...labels: string[]): number {
    return this.find(labels)?.state.v ?? 0;
  }
  /** Every series' label values and value (a copy). */
  values(): { labels: string[]; value: number }[] {
    return this.series.map(({ values, state }) => ({ labels: [...values], value: state.v }));
  }
  write(lines: string[]): void {
    for (const { values, state } of this.series) {
      lines.push(`${this.name}${labelText(this.labelNames, values)} ${formatValue(state.v)}`);
    }
  }
}

/** A value that goes up and down (queue depth, channels active). */
export class Gauge extends LabelledMetric<{ v: number }> {
  readonly kind = "gauge" as const;
  protected initial() {
    return { v: 0 };
  }
  set(v: number, a?: string, b?: string, c?: string, d?: string): void {
    this.stateOf(a, b, c, d).v = v;
  }
  add(n: number, a?: string, b?: string, c?: string, d?: string): void {
    this.stateOf(a, b, c, d).v += n;
  }
  value(...labels: string[]): number {
    return this.find(labels)?.state.v ?? 0;
  }
  /** Forgets every series (a scrape-time gauge rebuilt from a query). */
  reset(): void {
    this.clear();
  }
  write(lines: string[]): void {
    for (const { values, state } of this.series) {
      lines.push(`${this.name}${labelText(this.labelNames, values)} ${formatValue(state.v)}`);
    }
  }
}

interface HistogramState {
  counts: number[];
  sum: number;
  count: number;
}

/** Observations counted in cumulative `le` buckets, with their sum and count (latencies, sizes). */
export class Histogram extends LabelledMetric<HistogramState> {
  readonly kind = "histogram" as const;

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly buckets: readonly number[],
  ) {
    super(name, help, labelNames);
  }
  protected initial(): HistogramState {
    return { counts: new Array(this.buckets.length).fill(0), sum: 0, count: 0 };
  }
  observe(value: number, a?: string, b?: string, c?: string, d?: string): void {
    const s = this.stateOf(a, b, c, d);
    const buckets = this.buckets;
    // Counted in the first bucket that holds it; cumulated when written.
    for (let i = 0; i < buckets.length; i++) {
      if (value <= (buckets[i] as number)) {
        (s.counts[i] as number)++;
        break;
      }
    }
    s.sum += value;
    s.count++;
  }
  /** Observations of the series (tests). */
  count(...labels: string[]): number {
    return this.find(labels)?.state.count ?? 0;
  }
  /** Every series' label values and its per-bucket (not cumulative) counts, sum and count (a copy). */
  values(): { labels: string[]; counts: number[]; sum: number; count: number }[] {
    return this.series.map(({ values, state }) => ({
      labels: [...values],
      counts: [...state.counts],
      sum: state.sum,
      count: state.count,
    }));
  }
  write(lines: string[]): void {
    for (const { values, state } of this.series) {
      let cumulative = 0;
      for (const [i, le] of this.buckets.entries()) {
        cumulative += state.counts[i] as number;
        lines.push(`${this.name}_bucket${labelText(this.labelNames, values, `le="${formatValue(le)}"`)} ${cumulative}`);
      }
      lines.push(`${this.name}_bucket${labelText(this.labelNames, values, 'le="+Inf"')} ${state.count}`);
      lines.push(`${this.name}_sum${labelText(this.labelNames, values)} ${formatValue(state.sum)}`);
      lines.push(`${this.name}_count${labelText(this.labelNames, values)} ${state.count}`);
    }
  }
}

/**
 * The metrics of one process. Asking twice for a metric of the same name gives the same metric (the
 * services of the embedded process share their bus's and stores'), provided kind and labels agree.
 */
export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();
  private readonly collectors: (() => void | Promise<void>)[] = [];

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.register(name, "counter", labelNames, () => new Counter(name, help, labelNames));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.register(name, "gauge", labelNames, () => new Gauge(name, help, labelNames));
  }

  histogram(
    name: string,
    help: string,
    labelNames: readonly string[] = [],
    buckets: readonly number[] = LATENCY_BUCKETS,
  ): Histogram {
    const sorted = [...buckets].sort((a, b) => a - b);
    return this.register(name, "histogram", labelNames, () => new Histogram(name, help, labelNames, sorted));
  }

  /**
   * Runs `collect` before each scrape: gauges read from a store (queue depth, channels active) are
   * set there rather than kept up to date on every event. A failing collector is skipped, not fatal.
   */
  onCollect(collect: () => void | Promise<void>): void {
    this.collectors.push(collect);
  }

  /** The exposition text: HELP and TYPE lines, then each series. */
  async render(): Promise<string> {
    await Promise.all(
      this.collectors.map(async (c) => {
        try {
          await c();
        } catch {
          // A store that does not answer leaves its gauges at their last value; /ready says why.
        }
      }),
    );
    const lines: string[] = [];
    for (const m of [...this.metrics.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      lines.push(`# HELP ${m.name} ${escapeHelp(m.help)}`);
      lines.push(`# TYPE ${m.name} ${m.kind}`);
      m.write(lines);
    }
    return `${lines.join("\n")}\n`;
  }

  /** The counter or histogram of this name, if one is registered (read by the overview's sampler). */
  find(name: string): Counter | Histogram | undefined {
    const m = this.metrics.get(name);
    return m instanceof Counter || m instanceof Histogram ? m : undefined;
  }

  private register<M extends Metric>(name: string, kind: Kind, labelNames: readonly string[], make: () => M): M {
    const found = this.metrics.get(name);
    if (found) {
      if (found.kind !== kind || found.labelNames.join() !== labelNames.join()) {
        throw new Error(`metric ${name} is already registered with another kind or labels`);
      }
      return found as M;
    }
    if (!NAME_RE.test(name)) throw new Error(`invalid metric name: ${name}`);
    if (labelNames.length > MAX_LABELS) throw new Error(`${name} has more than ${MAX_LABELS} label names`);
    for (const l of labelNames) {
      if (!LABEL_RE.test(l) || l === "le") throw new Error(`invalid label name on ${name}: ${l}`);
    }
    const metric = make();
    this.metrics.set(name, metric);
    return metric;
  }
}

/** The content type of the exposition text. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
