import type { Logger } from "@junction/platform";
import type { JsonValue, RunResult } from "../runtime/run-types.ts";
import type { EndedRunStatus, RunFinish, ScriptRunRecord } from "../store/records.ts";
import type { RunPlan } from "./script-runner.ts";

/** What is written of a run's end: its status, timing, logs and error, an action's output, the attempt. */
export function runFinish(
  plan: RunPlan,
  status: EndedRunStatus,
  result: RunResult,
  kept: { output?: JsonValue },
): RunFinish {
  return {
    status,
    finishedAt: result.finishedAt,
    durationMs: result.durationMs,
    logs: result.logs,
    logsTruncated: result.logsTruncated,
    error: result.error ?? null,
    ...kept,
    // The attempt is named whenever known: a run taken over by a later attempt refuses this end.
    ...(plan.attempt !== undefined ? { attempt: plan.attempt } : {}),
  };
}

/** Logs how a run ended: info when it succeeded, a warning with its error's name otherwise. */
export function logRunEnd(logger: Logger, record: ScriptRunRecord, status: EndedRunStatus, result: RunResult): void {
  const fields = {
    runId: record.id,
    integration: record.providerConfigKey,
    script: record.scriptName,
    version: record.scriptVersion,
    connectionId: record.connectionId,
    trigger: record.trigger,
    attempt: record.attempt,
    status,
    durationMs: result.durationMs,
  };
  if (status === "succeeded") logger.info("script run succeeded", fields);
  else logger.warn("script run did not succeed", { ...fields, error: result.error?.name });
}
