import type { TimerHandle } from "@junction/platform";
import type { WebhookServiceDeps } from "../context.ts";
import type { DeliveryScheduler } from "./delivery-scheduler.ts";

/** Stored messages read per page when resuming or sweeping. */
const SWEEP_PAGE = 10_000;
/** Final messages deleted per write, and at most per sweep (the next sweep goes on). */
const PRUNE_PAGE = 500;
const PRUNE_MAX_PER_SWEEP = 50_000;

/**
 * The periodic sweep of the store: schedules the messages still to deliver that this process does
 * not know yet (another's, or its own from before a restart), and prunes old dedup keys and, with a
 * retention, old final messages.
 */
export class DeliverySweep {
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(
    private readonly deps: WebhookServiceDeps,
    private readonly scheduler: DeliveryScheduler,
  ) {}

  /** Sweeps once, now. */
  async run(): Promise<void> {
    const { deps, scheduler } = this;
    for (const entry of await deps.store.listDeliverable(SWEEP_PAGE)) {
      if (!scheduler.has(entry.id)) scheduler.schedule(entry.id, Math.max(entry.nextAttemptAt, entry.leaseUntil ?? 0));
    }
    await deps.store.pruneNotificationKeys(deps.clock.now() - deps.delivery.dedupRetentionMs);
    if (deps.delivery.messageRetentionMs > 0) await this.pruneMessages();
  }

  /** Sweeps every sweep interval from now on, until `stop`; a failed sweep is logged. */
  arm(): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimer(() => {
      this.run()
        .catch((err: unknown) => this.deps.logger.error("delivery sweep failed", { error: err }))
        .finally(() => this.arm());
    }, this.deps.delivery.sweepIntervalMs);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** Deletes final messages past the retention, in pages, so that no single write holds the store for long. */
  private async pruneMessages(): Promise<void> {
    const { deps } = this;
    const before = deps.clock.now() - deps.delivery.messageRetentionMs;
    let pruned = 0;
    for (let n = PRUNE_PAGE; n === PRUNE_PAGE && pruned < PRUNE_MAX_PER_SWEEP; pruned += n) {
      n = await deps.store.pruneFinishedMessages(before, PRUNE_PAGE);
    }
    if (pruned > 0) {
      deps.logger.info("old webhook messages pruned", { pruned, olderThan: new Date(before).toISOString() });
    }
  }
}
