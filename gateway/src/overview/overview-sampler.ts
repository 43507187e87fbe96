import type { Clock, Logger, MetricsSample, TimerHandle } from "@junction/platform";
import { deltaOf, type Readings, readingsOf } from "./overview-readings.ts";
import type { OverviewStore } from "./overview-store.ts";

/** A process whose metrics the overview reads: this one's registry, or a service process over RPC. */
export interface MetricsSource {
  /** The process's name (a service's, or "gateway"). */
  name: string;
  /**
   * Read by every gateway on the store (a service process, over RPC): only the holder of the store's
   * sampling lease adds its counts. A process's own registry is not shared: each gateway adds its own.
   */
  shared?: boolean;
  sample(): Promise<MetricsSample>;
}

/** The sampler's default interval: four samples to a minute bucket. */
export const DEFAULT_SAMPLE_INTERVAL_MS = 15_000;
/** The sampling lease lasts this many intervals: a holder late by two readings keeps it. */
const LEASE_INTERVALS = 3;

/**
 * Reads each process's counters on an interval of the injected clock and adds what happened since the
 * last reading to the store's buckets. The first reading of a process is its baseline: what it counted
 * before the sampler knew it is not put into the current bucket (a gateway restarted under running
 * services would otherwise add their whole history at once).
 *
 * Several gateways may share one store (one `gateway.sqlite`, one MongoDB) and all read the same service
 * processes. The services' counts are added by one of them: the holder of the store's sampling lease,
 * renewed at each reading (one atomic write) and lasting three intervals. The others add only their own
 * counts. A holder that dies keeps the lease until it runs out; the next gateway to read then takes it
 * and starts from fresh baselines, so what happened between the dead holder's last reading and that
 * baseline (at most the lease and one interval) is not counted, and nothing is counted twice. A holder
 * stopping gives the lease up, and another takes it at its next reading. An elected sampler rather than
 * per-source readings kept per bucket and summed by the readers: those would multiply the rows by the
 * processes, and a service's restart would be judged from readings different gateways took at different
 * moments; with the lease, the buckets and their readers stay as they are, and one sampler judges each
 * restart against its own last reading.
 */
export class OverviewSampler {
  private readonly last = new Map<string, Readings>();
  private readonly own: readonly MetricsSource[];
  private readonly shared: readonly MetricsSource[];
  private readonly holder: string;
  private readonly leaseMs: number;
  private holding = false;
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly store: OverviewStore,
    sources: readonly MetricsSource[],
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly intervalMs: number = DEFAULT_SAMPLE_INTERVAL_MS,
    lease: { holder?: string; ms?: number } = {},
  ) {
    this.own = sources.filter((s) => !s.shared);
    this.shared = sources.filter((s) => s.shared);
    this.holder = lease.holder ?? crypto.randomUUID();
    this.leaseMs = lease.ms ?? LEASE_INTERVALS * intervalMs;
  }

  /** Takes the baselines, then samples on the interval until stop(). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.sampleOnce();
    this.schedule();
  }

  /** Stops sampling; gives the sampling lease up if this sampler holds it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.running;
    if (!this.holding) return;
    this.holding = false;
    await this.store.releaseSampling(this.holder).catch((err) => {
      this.logger.warn("overview: the sampling lease could not be given up", { error: err });
    });
  }

  /**
   * Reads every source once (the shared ones only while holding the lease) and stores the deltas; a
   * source that does not answer is skipped this time.
   */
  async sampleOnce(): Promise<void> {
    const now = this.clock.now();
    const own: Readings = new Map();
    const shared: Readings = new Map();
    const holding = await this.holdLease(now);
    await Promise.all([
      ...this.own.map((source) => this.read(source, own)),
      ...(holding ? this.shared.map((source) => this.read(source, shared)) : []),
    ]);
    // Read after the lease ran out: another gateway may have taken it and its baselines since.
    if (holding && this.clock.now() >= now + this.leaseMs) this.forgetShared();
    else for (const [k, n] of shared) own.set(k, (own.get(k) ?? 0) + n);
    await this.store.add(now, own);
    await this.store.prune(now);
  }

  /** Takes or renews the lease when there are shared sources; without it, their baselines are forgotten. */
  private async holdLease(now: number): Promise<boolean> {
    if (this.shared.length === 0) return false;
    try {
      this.holding = await this.store.claimSampling(this.holder, now, this.leaseMs);
    } catch (err) {
      this.logger.warn("overview: the sampling lease could not be renewed", { error: err });
      this.holding = false;
    }
    if (!this.holding) this.forgetShared();
    return this.holding;
  }

  private forgetShared(): void {
    for (const source of this.shared) this.last.delete(source.name);
  }

  /** One source's increase since its last reading, added to `into`; nothing the first time. */
  private async read(source: MetricsSource, into: Readings): Promise<void> {
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
    for (const [k, n] of deltaOf(previous, current)) into.set(k, (into.get(k) ?? 0) + n);
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
