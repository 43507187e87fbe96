import { fromConnectError } from "@junction/platform";
import type { ScriptVersionRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import type { ScriptRunner, StartedRun } from "../script-runner.ts";
import { type Lease, type ScheduleKey, scheduleKeyString } from "../store/records.ts";

/** Why a sync runs: its schedule, or a trigger. */
export type SyncTrigger = "schedule" | "manual";

/**
 * Runs syncs so that a sync never overlaps itself for a connection (issue 6, Triggers). Two guards:
 * the lease in the schedule row (compare-and-set, shared by every process on the store; it lapses
 * after the run deadline plus a margin, in case its holder died), and the keys running in this
 * process, which hold however far the service clock jumps (a test clock moving a day at once would
 * otherwise lapse a lease while its run is still going).
 */
export class SyncRuns {
  private readonly running = new Set<string>();

  constructor(
    private readonly ctx: ScriptsServiceContext,
    private readonly runner: ScriptRunner,
  ) {}

  /** A lease for a run starting now. */
  lease(): Lease {
    return {
      holder: this.ctx.instanceId,
      until: this.ctx.clock.now() + this.ctx.limits.timeoutMs + this.ctx.config.leaseMarginMs,
    };
  }

  /** Whether a run of this sync and connection is in progress in this process. */
  isRunningHere(key: ScheduleKey): boolean {
    return this.running.has(scheduleKeyString(key));
  }

  /**
   * Takes the run leases of several syncs of one connection, all or none (a trigger starts nothing
   * when one of them is running). Returns the names of the syncs found running, empty on success.
   */
  async acquireAll(keys: ScheduleKey[], nextDueAt: (key: ScheduleKey) => number | null): Promise<string[]> {
    const busy = keys.filter((k) => this.isRunningHere(k)).map((k) => k.scriptName);
    if (busy.length > 0) return busy;
    const taken: ScheduleKey[] = [];
    for (const key of keys) {
      if (await this.ctx.store.acquireLease(key, this.lease(), this.ctx.clock.now(), nextDueAt(key))) taken.push(key);
      else busy.push(key.scriptName);
    }
    if (busy.length > 0) {
      for (const key of taken) await this.ctx.store.releaseLease(key, this.ctx.instanceId, null);
    }
    return busy;
  }

  /**
   * Runs a sync whose lease this process holds, then gives the lease back. A connection that no
   * longer exists has its schedules removed and nothing runs (null): schedules of deleted connections
   * are cleaned up this way, whatever missed the deletion.
   */
  async runLeased(
    key: ScheduleKey,
    version: ScriptVersionRecord,
    trigger: SyncTrigger,
    incremental: boolean,
  ): Promise<StartedRun | null> {
    const id = scheduleKeyString(key);
    this.running.add(id);
    let released = false;
    // Once per run: the holder name is the process's, so a second release could free a later run's lease.
    const release = async (succeededAt: number | null) => {
      if (released) return;
      released = true;
      this.running.delete(id);
      await this.ctx.store.releaseLease(key, this.ctx.instanceId, succeededAt);
    };
    try {
      if (trigger === "schedule" && !(await this.connectionExists(key))) {
        await release(null);
        await this.ctx.store.removeConnectionSchedules(key.environmentId, key.providerConfigKey, key.connectionId);
        this.ctx.logger.info("sync schedules of a deleted connection removed", {
          integration: key.providerConfigKey,
          connectionId: key.connectionId,
        });
        return null;
      }
      const row = incremental ? await this.ctx.store.getSchedule(key) : null;
      // The lease goes back before the run is recorded as finished (see RunPlan.beforeRecord); the
      // start of a successful run is what the next incremental run continues from.
      const started = await this.runner.start({
        version,
        connectionId: key.connectionId,
        trigger,
        entry: "exec",
        lastSyncDate: row?.lastSuccessAt ?? null,
        beforeRecord: (ended) => release(ended.status === "succeeded" ? ended.startedAt : null),
      });
      const finished = started.finished.catch(async (err: unknown) => {
        await release(null).catch(() => undefined);
        throw err;
      });
      return { record: started.record, finished };
    } catch (err) {
      await release(null).catch(() => undefined);
      throw err;
    }
  }

  private async connectionExists(key: ScheduleKey): Promise<boolean> {
    try {
      await this.ctx.clients().connection.getConnection({
        providerConfigKey: key.providerConfigKey,
        connectionId: key.connectionId,
      });
      return true;
    } catch (err) {
      const code = fromConnectError(err).code;
      if (code === "unknown_connection" || code === "unknown_provider_config") return false;
      throw err;
    }
  }
}
