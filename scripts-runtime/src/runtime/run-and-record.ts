import { type Clock, JunctionError, newId } from "@junction/platform";
import type { RunTrigger, ScriptRunRecord } from "../store/records.ts";
import type { ScriptRunStore } from "../store/stores.ts";
import type { RunError, RunRequest, RunResult } from "./run-types.ts";
import type { ScriptRuntime } from "./script-runtime.ts";

/** Which script version a run is of, and why it runs: what the run record says besides the outcome. */
export interface RunSubject {
  environmentId: string;
  providerConfigKey: string;
  scriptName: string;
  scriptVersion: number;
  connectionId: string | null;
  trigger: RunTrigger;
  /** 1 for a first try (default). */
  attempt?: number;
}

/** The record of a run as it starts (`running`); its id sorts by `startedAt`. */
export function runningRecord(subject: RunSubject, entry: RunRequest["entry"], startedAt: number): ScriptRunRecord {
  return {
    id: newId("run", startedAt),
    environmentId: subject.environmentId,
    providerConfigKey: subject.providerConfigKey,
    scriptName: subject.scriptName,
    scriptVersion: subject.scriptVersion,
    connectionId: subject.connectionId,
    trigger: subject.trigger,
    entry,
    attempt: subject.attempt ?? 1,
    status: "running",
    startedAt,
    finishedAt: null,
    durationMs: null,
    logs: [],
    logsTruncated: false,
    error: null,
  };
}

/** The error a run is recorded with when the runtime refused it (closed, too many waiting): nothing ran. */
export function runtimeRefused(err: unknown): RunError {
  const queueTimeout = err instanceof JunctionError && err.code === "script_queue_timeout";
  return {
    name: queueTimeout ? "QueueTimeoutError" : "RuntimeUnavailable",
    message: err instanceof Error ? err.message : "the script runtime refused the run",
  };
}

/**
 * Runs a script and records the run: `running` as it starts (so that a run in progress is visible),
 * then how it ended. The run id (`run_...`) is the script's `nango.activityLogId`. A run the runtime
 * refuses (closed, too many waiting, bad limits) is recorded as failed, then the error is thrown.
 */
export async function runAndRecord(
  runtime: ScriptRuntime,
  store: ScriptRunStore,
  clock: Clock,
  subject: RunSubject,
  request: RunRequest,
): Promise<{ record: ScriptRunRecord; result: RunResult }> {
  const startedAt = clock.now();
  const running = runningRecord(subject, request.entry, startedAt);
  const id = running.id;
  await store.insert(running);
  const context = {
    environmentId: subject.environmentId,
    providerConfigKey: subject.providerConfigKey,
    scriptName: subject.scriptName,
    ...(subject.connectionId === null ? {} : { connectionId: subject.connectionId }),
    ...request.context,
    runId: id,
  };
  let result: RunResult;
  try {
    result = await runtime.run({ ...request, context });
  } catch (err) {
    const error = runtimeRefused(err);
    const at = clock.now();
    await store.finish(subject.environmentId, id, {
      status: "failed",
      finishedAt: at,
      durationMs: at - startedAt,
      logs: [],
      logsTruncated: false,
      error,
    });
    throw err;
  }
  const finished = await store.finish(subject.environmentId, id, {
    status: result.status,
    finishedAt: result.finishedAt,
    durationMs: result.durationMs,
    logs: result.logs,
    logsTruncated: result.logsTruncated,
    error: result.error ?? null,
  });
  return { record: finished ?? { ...running, status: result.status }, result };
}
