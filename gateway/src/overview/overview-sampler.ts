import type { Clock, Logger, MetricsSample, TimerHandle } from "@junction/platform";
import { deltaOf, type Readings, readingsOf } from "./overview-readings.ts";
import type { OverviewStore } from "./overview-store.ts";

/** A process whose metrics the overview reads: this one's registry, or a service process over RPC. */
export interface MetricsSource {
  /** The process's name (a service's, or "gateway"). */
  name: string;
  sample(): Promise<MetricsSample>;
}

/** The sampler's default interval: four samples to a minute bucket. */
export const DEFAULT_SAMPLE_INTERVAL_MS = 15_000;

/**
 * Reads each process's counters on an interval of the injected clock and adds what happened since the
 * last reading to the store's buckets. The first reading of a process is its baseline: what it counted
 * before the sampler knew it is not put into the current bucket (a gateway restarted under running
 * services would otherwise add their whole history at once).
 */
export class OverviewSampler {
  private readonly last = new Map<string, Readings>();
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly store: OverviewStore,
    private readonly sources: readonly MetricsSource[],
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly intervalMs: number = DEFAULT_SAMPLE_INTERVAL_MS,
  ) {}

  /** Takes the baselines, then samples on the interval until stop(). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.sampleOnce();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.running;
  }

  /** Reads every source once and stores the deltas; a source that does not answer is skipped this time. */
  async sampleOnce(): Promise<void> {
    const now = this.clock.now();
    const total: Readings = new Map();
    await Promise.all(
      this.sources.map(async (source) => {
        let current: Readings;
        try {
          current = readingsOf(await source.sample());
        } catch (err) {
          this.logger.warn("overview: a process's metrics could not be read", { process: source.name, error: err });
          return;
        }
        const previous = this.last.get(source.name);
        this.last.set(source.name, current);
        if (previous === undefined) return;
        for (const [k, n] of deltaOf(previous, current)) total.set(k, (total.get(k) ?? 0) + n);
      }),
    );
    await this.store.add(now, total);
    await this.store.prune(now);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimer(() => {
      this.running = this.sampleOnce()
        .catch((err) => this.logger.error("overview: sampling failed", { error: err }))
        .finally(() => this.schedule());
    }, this.intervalMs);
  }
}
