import type { ScriptEntry } from "../declaration/script-declaration.ts";
import { runningRecord } from "../runtime/run-and-record.ts";
import type { JsonValue, RunResult } from "../runtime/run-types.ts";
import type { EndedRunStatus, RunCaller, RunTrigger, ScriptRunRecord, ScriptVersionRecord } from "../store/records.ts";
import type { ScriptsServiceContext } from "./context.ts";
import { FailureLog } from "./host/host-failure.ts";
import { createRunHost } from "./host/run-host.ts";
import { openRunData, type RunData } from "./host/sync-run-data.ts";
import { logRunEnd, runFinish } from "./run-end.ts";
import { refusedRun, runInSandbox } from "./run-in-sandbox.ts";
import { type ScriptMetrics, scriptMetrics } from "./script-metrics.ts";
import { recordRun } from "./run-operation.ts";
import { keepActionOutput } from "./triggers/action-output.ts";

/** One run to make: which version, for which connection, why. */
export interface RunPlan {
  version: ScriptVersionRecord;
  connectionId: string;
  trigger: RunTrigger;
  entry: ScriptEntry;
  /** The entry's second argument (onWebhook's payload). */
  input?: JsonValue;
  /** 1 for a first try. */
  attempt?: number;
  /** An action run's caller, recorded with it. */
  caller?: RunCaller;
  /** `nango.lastSyncDate` (incremental syncs). */
  lastSyncDate?: number | null;
  /**
   * Called when the run has ended, before its end is recorded: whoever reads the run as finished
   * then finds what this released (a sync's lease) released already.
   */
  beforeRecord?: (ended: RunEnd) => Promise<void>;
  /**
   * A failure is not written: the run stays `running`, to be tried again under the same id (an
   * async action with retries left). Its logs are lost; its error is logged.
   */
  retryFailure?: boolean;
}

/** What `beforeRecord` is told of a run's end. */
export interface RunEnd {
  status: EndedRunStatus;
  startedAt: number;
  /** A sync's checkpoint changed during the run: a run stopped from outside has progress to resume. */
  checkpointMoved: boolean;
}

/** How a run ended, and whether trying again may help. */
export interface FinishedRun {
  record: ScriptRunRecord;
  /**
   * The run did not succeed and a script API call failed because a service or the upstream was
   * unavailable (502, 503, 504 of Junction's own), or the runtime refused the run: worth another try.
   * A script that throws for its own reasons is not.
   */
  transient: boolean;
}

/** A run recorded as started, and its end. `finished` does not reject for anything the script does. */
export interface StartedRun {
  record: ScriptRunRecord;
  finished: Promise<FinishedRun>;
}

/**
 * Runs script versions in the sandbox with a host scoped to the run's connection, and records every
 * run: as `running` when it starts (so that the caller gets its id at once), then how it ended, with
 * its logs (spec: "Every run is recorded").
 */
export class ScriptRunner {
  private readonly inFlight = new Set<Promise<FinishedRun>>();
  /** Runs of this process, waiting for a sandbox or running: what `cancel` can stop. */
  private readonly cancellable = new Map<string, AbortController>();
  private readonly running = new Map<string, Promise<FinishedRun>>();
  private readonly counts: ScriptMetrics;
  /** Set by `stopping()`: sync runs the closing runtime ends are recorded `interrupted`. */
  private closing = false;

  constructor(private readonly ctx: ScriptsServiceContext) {
    this.counts = scriptMetrics(ctx.metrics);
  }

  /** The service is stopping: sync runs its sandbox ends now were interrupted, not crashed. */
  stopping(): void {
    this.closing = true;
  }

  /** Whether this process is running (or about to run) this run. */
  isRunning(runId: string): boolean {
    return this.running.has(runId);
  }

  /** Counts a run another process left `running` and that is now recorded `interrupted`. */
  countInterrupted(kind: string, durationMs: number): void {
    this.counts.observe(kind, "interrupted", durationMs);
  }

  /** Waits for the runs in progress to be recorded (at shutdown, after the runtime stopped them). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Cancels a run of this process: out of the line, or its sandbox process killed. The run then ends
   * `failed` with a CancelledError. Null when this process is not running it; else its end.
   */
  cancel(runId: string, reason: string): Promise<FinishedRun> | null {
    const controller = this.cancellable.get(runId);
    const finished = this.running.get(runId);
    if (!controller || !finished) return null;
    controller.abort(reason);
    return finished;
  }

  async start(plan: RunPlan): Promise<StartedRun> {
    const record = await this.record(plan);
    return this.resume(record, plan);
  }

  /** Records a run as `running` without starting it (an async action waiting in the queue). */
  async record(plan: RunPlan): Promise<ScriptRunRecord> {
    const { version } = plan;
    const startedAt = this.ctx.clock.now();
    const record = runningRecord(
      {
        environmentId: version.environmentId,
        providerConfigKey: version.providerConfigKey,
        scriptName: version.name,
        scriptVersion: version.version,
        connectionId: plan.connectionId,
        trigger: plan.trigger,
        ...(plan.attempt === undefined ? {} : { attempt: plan.attempt }),
      },
      plan.entry,
      startedAt,
    );
    // An action's input is what it was called with: kept with the run, as its output is.
    if (plan.trigger === "action" && plan.input !== undefined) record.input = plan.input;
    if (plan.caller) record.caller = plan.caller;
    await this.ctx.runs.insert(record);
    return record;
  }

  /** Runs a recorded run that is still `running` (`record`, or `start`'s), and writes its end. */
  resume(record: ScriptRunRecord, plan: RunPlan): StartedRun {
    const finished = this.execute(record, plan);
    this.inFlight.add(finished);
    this.running.set(record.id, finished);
    void finished
      .catch(() => undefined)
      .finally(() => {
        this.inFlight.delete(finished);
        this.running.delete(record.id);
      });
    return { record, finished };
  }

  private async execute(record: ScriptRunRecord, plan: RunPlan): Promise<FinishedRun> {
    const failures = new FailureLog();
    const scope = {
      environmentId: record.environmentId,
      providerConfigKey: record.providerConfigKey,
      connectionId: plan.connectionId,
      runId: record.id,
    };
    const data = await openRunData(this.ctx, record, plan);
    const host = {
      ...createRunHost(
        { clients: this.ctx.clients(), proxy: this.ctx.proxy, logger: this.ctx.logger },
        scope,
        failures,
      ),
      records: data.records,
    };
    let result: RunResult;
    const controller = new AbortController();
    this.cancellable.set(record.id, controller);
    try {
      result = await runInSandbox(this.ctx, record, plan, host, controller.signal);
    } catch (err) {
      // The runtime refused the run (closed, too many waiting): nothing ran; another try may do.
      failures.transient++;
      result = refusedRun(this.ctx.clock.now(), err);
    } finally {
      this.cancellable.delete(record.id);
    }
    return this.recordEnd(record, plan, data, result, failures);
  }

  /**
   * Counts a run that ended and writes its end, with an action's output, after its data is finished
   * and `beforeRecord` ran; or, for a failure to be tried again, leaves it `running`.
   */
  private async recordEnd(
    record: ScriptRunRecord,
    plan: RunPlan,
    data: RunData,
    ran: RunResult,
    failures: FailureLog,
  ): Promise<FinishedRun> {
    const { kind } = plan.version.declaration;
    this.counts.observe(kind, this.endedStatus(plan, ran), ran.durationMs);
    recordRun(this.ctx.operations, kind, record, ran);
    // Only an action's result is kept: what a sync or a lifecycle script returns means nothing.
    const isAction = kind === "action";
    const { output, ...result } = isAction ? keepActionOutput(ran) : ran;
    const status = this.endedStatus(plan, result);
    const kept = isAction && output !== undefined ? { output } : {};
    // A cancelled run is not tried again: it was stopped on purpose.
    const cancelled = result.error?.name === "CancelledError";
    if (plan.retryFailure && result.status !== "succeeded" && !cancelled)
      return this.leaveForRetry(record, plan, result);
    await data.finish(result);
    const checkpointMoved = data.checkpointMoved();
    await plan
      .beforeRecord?.({ status, startedAt: record.startedAt, checkpointMoved })
      .catch((err: unknown) => this.ctx.logger.error("script run end not handled", { runId: record.id, error: err }));
    const finished = await this.ctx.runs.finish(record.environmentId, record.id, runFinish(plan, status, result, kept));
    const ended = finished ?? { ...record, status, error: result.error ?? null, ...kept };
    logRunEnd(this.ctx.logger, record, status, result);
    return { record: ended, transient: result.status !== "succeeded" && failures.transient > 0 };
  }

  /** A failed run to be tried again under its id: logged, not written; it stays `running`. */
  private leaveForRetry(record: ScriptRunRecord, plan: RunPlan, result: RunResult): FinishedRun {
    this.ctx.logger.warn("script run failed; it will be tried again", {
      runId: record.id,
      script: record.scriptName,
      attempt: plan.attempt ?? record.attempt,
      status: result.status,
      error: result.error?.name,
    });
    return { record: { ...record, status: result.status, error: result.error ?? null }, transient: true };
  }

  /** A sync's exec ended by the stopping service (its sandbox closed, or refused it) was interrupted. */
  private endedStatus(plan: RunPlan, result: RunResult): EndedRunStatus {
    const isSync = plan.version.declaration.kind === "sync" && plan.entry === "exec";
    const byClose = result.status === "crashed" || result.error?.name === "RuntimeUnavailable";
    return this.closing && isSync && byClose ? "interrupted" : result.status;
  }
}
