import type { TimerHandle } from "@junction/platform";
import type { ScriptsServiceContext } from "../context.ts";

const DAY_MS = 86_400_000;

/**
 * Applies the integrations' retention rules on the service clock, every `recordRetentionSweepMs`:
 * payloads unchanged for `payloadDays` are pruned, records of models without a run for `recordsDays`
 * deleted, never past what the app has read (RecordRetention). Every scripts process sweeps; a
 * second pass over the same records changes nothing.
 */
export class RetentionSweep {
  private timer: TimerHandle | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly ctx: ScriptsServiceContext) {}

  start(): void {
    this.arm();
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = null;
    await this.running;
  }

  /** One pass over every rule; returns what it removed. */
  async pass(): Promise<{ pruned: number; deleted: number }> {
    const now = this.ctx.clock.now();
    const total = { pruned: 0, deleted: 0 };
    for (const rule of await this.ctx.records.retention.listRules()) {
      if (rule.payloadDays === 0 && rule.recordsDays === 0) continue;
      const cutoffs = {
        pruneBefore: rule.payloadDays ? now - rule.payloadDays * DAY_MS : null,
        deleteBefore: rule.recordsDays ? now - rule.recordsDays * DAY_MS : null,
      };
      const done = await this.ctx.records.retention.apply(rule, cutoffs, now);
      if (done.pruned || done.deleted) {
        this.ctx.logger.info("records retention applied", { integration: rule.providerConfigKey, ...done });
      }
      total.pruned += done.pruned;
      total.deleted += done.deleted;
    }
    return total;
  }

  private arm(): void {
    this.timer = this.ctx.clock.setTimer(() => {
      this.running = this.pass()
        .then(() => undefined)
        .catch((err: unknown) => this.ctx.logger.error("records retention pass failed", { error: err }))
        .finally(() => {
          this.running = null;
          if (this.timer) this.arm();
        });
    }, this.ctx.config.recordRetentionSweepMs);
  }
}
