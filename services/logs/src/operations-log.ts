import type { Clock, Logger, TimerHandle } from "@junction/platform";
import type { Operation } from "@junction/platform/operations/operation";
import { operationsFromJson } from "@junction/platform/operations/delivery-round";
import type { EncodedOperationSink, OperationSink } from "@junction/platform/operations/operation-recorder";
import { type LogsConfig, retentionMs } from "./config.ts";
import type { OperationStore } from "./store/operation-store.ts";

/**
 * The log's writer: takes batches into the store and keeps it inside the operator's retention, by
 * age on a schedule and by count as soon as a batch takes it past the bound (a flood never grows
 * the store past one batch over it).
 */
export class OperationsLog {
  private approxCount = 0;
  private timer: TimerHandle | undefined;
  private pruning: Promise<void> = Promise.resolve();

  constructor(
    readonly store: OperationStore,
    private readonly config: LogsConfig,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.approxCount = await this.store.count();
    await this.prune();
    this.schedule();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  async ingest(batch: Operation[]): Promise<void> {
    await this.store.insert(batch);
    await this.added(batch.length);
  }

  /** A batch as one JSON array of `count` operations (the recorder's text when the store takes text). */
  async ingestEncoded(json: string, count: number): Promise<void> {
    if (this.store.insertEncoded) await this.store.insertEncoded(json);
    else await this.store.insert(operationsFromJson(json));
    await this.added(count);
  }

  /** The recorder's sink for this log: text when the store takes it as text, objects otherwise. */
  sink(): OperationSink | EncodedOperationSink {
    if (this.store.insertEncoded) return { encoded: (json, count) => this.ingestEncoded(json, count) };
    return (batch) => this.ingest(batch);
  }

  private async added(count: number): Promise<void> {
    this.approxCount += count;
    if (this.approxCount > this.config.maxOperations) await this.prune();
  }

  /** Removes what retention no longer allows (one at a time). */
  prune(): Promise<void> {
    this.pruning = this.pruning.then(async () => {
      try {
        const bounds = { maxAgeMs: retentionMs(this.config), maxCount: this.config.maxOperations };
        await this.store.prune(bounds, this.clock.now());
        this.approxCount = await this.store.count();
      } catch (err) {
        this.logger.warn("operations retention failed", { error: String(err) });
      }
    });
    return this.pruning;
  }

  /** Resolves once the retention run under way (a scheduled one included) is over (tests). */
  idle(): Promise<void> {
    return this.pruning;
  }

  private schedule(): void {
    this.timer = this.clock.setTimer(() => {
      void this.prune().then(() => {
        if (this.timer) this.schedule();
      });
    }, this.config.pruneIntervalMs);
  }
}
