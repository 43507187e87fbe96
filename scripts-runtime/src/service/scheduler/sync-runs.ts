import { fromConnectError } from "@junction/platform";
import type { ScriptVersionRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { stoppedFromOutside } from "../script-metrics.ts";
import type { ScriptRunner, StartedRun } from "../script-runner.ts";
import { type FollowUpMode, type Lease, type ScheduleKey, scheduleKeyString } from "../store/records.ts";

/** Why a sync runs: its schedule, or a trigger. */
export type SyncTrigger = "schedule" | "manual";

/** What a trigger did for one sync: started a run now, or queued a follow-up behind the one running. */
export type TriggerOutcome = { started: StartedRun } | { queued: true } | { gone: true };

/**
 * Runs syncs so that a sync never overlaps itself for a connection (spec: Triggers). Two guards:
 * the lease in the schedule row (compare-and-set, shared by every process on the store; it lapses
 * after the queue wait, the run deadline and a margin, in case its holder died), and the keys running in this
 * process, which hold however far the service clock jumps (a test clock moving a day at once would
 * otherwise lapse a lease while its run is still going).
 */
export class SyncRuns {
  private readonly running = new Set<string>();
  /** Told when a follow-up is queued, so that the scheduler looks at the time it is due. */
  onFollowUpQueued: () => void = () => {};

  constructor(
    private readonly ctx: ScriptsServiceContext,
    private readonly runner: ScriptRunner,
  ) {}

  /**
   * A lease for a run starting now. It outlasts the longest a run can take: its wait for a sandbox
   * process (queueTimeoutMs; the fair pool makes syncs wait behind their integration's), its deadline,
   * and the margin.
   */
  lease(): Lease {
    const { queueTimeoutMs, leaseMarginMs } = this.ctx.config;
    return {
      holder: this.ctx.instanceId,
      until: this.ctx.clock.now() + queueTimeoutMs + this.ctx.limits.timeoutMs + leaseMarginMs,
    };
  }

  /** Whether a run of this sync and connection is in progress in this process. */
  isRunningHere(key: ScheduleKey): boolean {
    return this.running.has(scheduleKeyString(key));
  }

  /**
   * Runs a sync of a connection now (a trigger), or, when a run of it is in progress, queues one
   * follow-up run that starts as soon as that run ends. `nextDueAt` is the due time
   * of a schedule row the trigger creates.
   */
  async trigger(
    key: ScheduleKey,
    version: ScriptVersionRecord,
    mode: FollowUpMode,
    nextDueAt: number | null,
  ): Promise<TriggerOutcome> {
    const now = this.ctx.clock.now();
    if (!this.isRunningHere(key) && (await this.ctx.store.acquireLease(key, this.lease(), now, nextDueAt))) {
      const started = await this.runLeased(key, version, "manual", mode === "incremental");
      return started ? { started } : { gone: true };
    }
    await this.ctx.store.queueFollowUp(key, mode, now);
    // The run may have ended between the two steps without seeing the follow-up: then take it here.
    const orphan = await this.takeFollowUp(key, version);
    if (orphan) return { started: orphan };
    this.onFollowUpQueued();
    this.ctx.logger.info("sync follow-up queued behind the run in progress", {
      integration: key.providerConfigKey,
      script: key.scriptName,
      connectionId: key.connectionId,
      mode,
    });
    return { queued: true };
  }

  /**
   * Runs the follow-up queued for a sync when its lease is free (its holder ended without taking it,
   * or died). Null when there is none, or a run holds the lease (its holder will take it).
   */
  async takeFollowUp(key: ScheduleKey, version: ScriptVersionRecord): Promise<StartedRun | null> {
    if (this.isRunningHere(key)) return null;
    const row = await this.ctx.store.getSchedule(key);
    if (!row?.followUp || row.followUpAt === null) return null;
    const now = this.ctx.clock.now();
    const mode = await this.ctx.store.claimFollowUp(key, row.followUpAt, this.lease(), now);
    if (!mode) return null;
    return this.runLeased(key, version, "manual", mode === "incremental");
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
    // A follow-up queued meanwhile is taken in the same step, keeping the lease, and started at once.
    const release = async (succeededAt: number | null) => {
      if (released) return;
      released = true;
      this.running.delete(id);
      const followUp = await this.ctx.store.releaseLease(key, this.ctx.instanceId, succeededAt, this.lease());
      if (followUp) await this.startFollowUp(key, followUp);
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
        beforeRecord: async (ended) => {
          const resume = stoppedFromOutside(ended.status) && ended.checkpointMoved;
          // Interrupted by this service stopping: the resume is left queued for the next start.
          if (resume && ended.status !== "interrupted") await this.queueResume(key, ended.status);
          await release(ended.status === "succeeded" ? ended.startedAt : null);
          if (resume && ended.status === "interrupted") await this.queueResume(key, ended.status);
        },
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

  /**
   * A run stopped from outside (its deadline, its sandbox's death, the service stopping) after it moved
   * its checkpoint is followed at once by a run that resumes from there, as Nango schedules the next
   * execution at once; the release of the lease takes it. One that made no progress waits for its
   * schedule, so that a sync that cannot get past a page does not run in a loop.
   */
  async queueResume(key: ScheduleKey, status: string): Promise<void> {
    await this.ctx.store.queueFollowUp(key, "incremental", this.ctx.clock.now());
    this.ctx.logger.warn("sync run stopped before it ended; the next run resumes from its checkpoint", {
      integration: key.providerConfigKey,
      script: key.scriptName,
      connectionId: key.connectionId,
      status,
    });
  }

  /** Starts a follow-up whose lease this process holds, with the script's version of now. */
  private async startFollowUp(key: ScheduleKey, mode: FollowUpMode): Promise<void> {
    const fields = { integration: key.providerConfigKey, script: key.scriptName, connectionId: key.connectionId };
    try {
      const version = await this.ctx.scripts.getLatest(key.environmentId, key.providerConfigKey, key.scriptName);
      if (version?.declaration.kind !== "sync") {
        await this.ctx.store.releaseLease(key, this.ctx.instanceId, null);
        return;
      }
      const started = await this.runLeased(key, version, "manual", mode === "incremental");
      this.ctx.logger.info("queued sync follow-up started", { ...fields, mode, runId: started?.record.id });
      void started?.finished.catch((err: unknown) =>
        this.ctx.logger.error("sync follow-up run not recorded", { ...fields, error: err }),
      );
    } catch (err) {
      this.ctx.logger.error("queued sync follow-up failed to start", { ...fields, error: err });
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
