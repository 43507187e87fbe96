import type { TimerHandle } from "@junction/platform";
import type { ScriptVersionRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import type { ScheduleEntry } from "../store/records.ts";
import { nextDueAfter } from "./next-due.ts";
import type { SyncRuns } from "./sync-runs.ts";

/** When rows are due but a pass could not take them (a store error), the next look is this soon. */
const RETRY_SOON_MS = 1000;

/**
 * Runs syncs on their frequency, per connection (spec: Triggers). The schedule is in the store:
 * one row per (sync, connection) with its next due time. A pass takes the rows due at the service
 * clock's time and claims each due time by compare-and-set on it, so that however many processes
 * share the store, each due time runs once. A due time that finds the sync still running (for that
 * connection) is skipped, not queued: the schedule moves to the next one and the skip is logged. A
 * trigger's follow-up whose run's holder died is due when that lease lapses, and is taken here.
 * Time is the injected clock's: the timer is armed for the earliest due time (or the poll interval,
 * for rows other processes add), so a `1d` schedule runs under a manual clock as it would in a day.
 */
export class SyncScheduler {
  private timer: TimerHandle | undefined;
  private ticking = false;
  private again = false;
  private stopped = true;

  /**
   * `sweep` records the sync runs a dead process left `running` as interrupted (sweepInterruptedRuns),
   * before each pass: at start, and at each poll.
   */
  constructor(
    private readonly ctx: ScriptsServiceContext,
    private readonly syncs: SyncRuns,
    private readonly sweep: () => Promise<number> = async () => 0,
  ) {
    syncs.onFollowUpQueued = () => this.poke();
  }

  start(): void {
    this.stopped = false;
    this.poke();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** Looks for due syncs now: after new schedules were added, and when the timer fires. */
  poke(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.timer?.cancel();
    void this.tick();
  }

  private async tick(): Promise<void> {
    this.ticking = true;
    let failed = false;
    try {
      do {
        this.again = false;
        await this.pass();
      } while (this.again && !this.stopped);
    } catch (err) {
      failed = true;
      this.ctx.logger.error("sync scheduler pass failed", { error: err });
    } finally {
      this.ticking = false;
    }
    await this.arm(failed);
  }

  private async pass(): Promise<void> {
    await this.sweep().catch((err: unknown) =>
      this.ctx.logger.error("interrupted sync runs could not be looked for", { error: err }),
    );
    const now = this.ctx.clock.now();
    const due = await this.ctx.store.listDue(now, this.ctx.config.schedulerBatch);
    const versions = new Map<string, Promise<ScriptVersionRecord | null>>();
    for (const entry of due) {
      const id = `${entry.environmentId}\n${entry.providerConfigKey}\n${entry.scriptName}`;
      let version = versions.get(id);
      if (!version) {
        version = this.ctx.scripts.getLatest(entry.environmentId, entry.providerConfigKey, entry.scriptName);
        versions.set(id, version);
      }
      await this.fire(entry, await version, now);
    }
    if (due.length === this.ctx.config.schedulerBatch) this.again = true;
  }

  private async fire(entry: ScheduleEntry, version: ScriptVersionRecord | null, now: number): Promise<void> {
    if (version?.declaration.kind !== "sync") {
      // The script was removed (or replaced by a lifecycle script of the same name) meanwhile.
      await this.ctx.store.removeScriptSchedules(entry.environmentId, entry.providerConfigKey, entry.scriptName);
      return;
    }
    if (entry.nextDueAt !== null && entry.nextDueAt <= now) await this.fireDue(entry, version, now);
    if (entry.followUpAt !== null && entry.followUpAt <= now) {
      this.syncs
        .takeFollowUp(entry, version)
        .then((started) => started?.finished)
        .catch((err: unknown) =>
          this.ctx.logger.error("queued sync follow-up failed to start", {
            integration: entry.providerConfigKey,
            script: entry.scriptName,
            connectionId: entry.connectionId,
            error: err,
          }),
        );
    }
  }

  private async fireDue(entry: ScheduleEntry, version: ScriptVersionRecord, now: number): Promise<void> {
    const due = entry.nextDueAt as number;
    const frequencyMs =
      entry.frequency?.ms ?? (version.declaration.kind === "sync" ? version.declaration.frequencyMs : 0);
    const next = nextDueAfter(due, frequencyMs, now);
    const fields = {
      integration: entry.providerConfigKey,
      script: entry.scriptName,
      connectionId: entry.connectionId,
      due: new Date(due).toISOString(),
    };
    const outcome = this.syncs.isRunningHere(entry)
      ? "busy"
      : await this.ctx.store.claimDue(entry, due, next, this.syncs.lease(), now);
    if (outcome === "busy") {
      if (await this.ctx.store.skipDue(entry, due, next)) {
        this.ctx.logger.info("sync due time skipped: the previous run is still in progress", fields);
      }
      return;
    }
    if (outcome === "lost") return;
    this.syncs
      .runLeased(entry, version, "schedule", true)
      .then((started) => started?.finished)
      .catch((err: unknown) => this.ctx.logger.error("scheduled sync run failed to start", { ...fields, error: err }));
  }

  private async arm(failed: boolean): Promise<void> {
    if (this.stopped) return;
    let delay = this.ctx.config.schedulerPollMs;
    try {
      const earliest = await this.ctx.store.earliestDue();
      const now = this.ctx.clock.now();
      if (earliest !== null) delay = Math.min(delay, earliest <= now ? RETRY_SOON_MS : earliest - now);
    } catch (err) {
      this.ctx.logger.error("sync scheduler could not read the next due time", { error: err });
    }
    if (failed) delay = Math.max(delay, RETRY_SOON_MS);
    if (this.stopped) return;
    this.timer?.cancel();
    this.timer = this.ctx.clock.setTimer(() => this.poke(), delay);
  }
}
