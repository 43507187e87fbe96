import type { RunResult } from "../runtime/run-types.ts";
import { runtimeRefused } from "../runtime/run-and-record.ts";
import type { ScriptHost } from "../runtime/script-host.ts";
import type { ScriptRunRecord } from "../store/records.ts";
import type { ScriptsServiceContext } from "./context.ts";
import { BASE_VARIANT } from "./host/sync-run-data.ts";
import type { RunPlan } from "./script-runner.ts";

/**
 * Runs a recorded run's script in the sandbox with its host, as the run's context says. Throws when
 * the runtime refuses the run (closed, too many waiting): then nothing ran.
 */
export async function runInSandbox(
  ctx: ScriptsServiceContext,
  record: ScriptRunRecord,
  plan: RunPlan,
  host: ScriptHost,
  signal: AbortSignal,
): Promise<RunResult> {
  const runtime = await ctx.runtime();
  const integration = `${record.environmentId}/${record.providerConfigKey}`;
  return runtime.run({
    script: plan.version.compiled,
    entry: plan.entry,
    ...(plan.input === undefined ? {} : { input: plan.input }),
    context: {
      runId: record.id,
      environmentId: record.environmentId,
      providerConfigKey: record.providerConfigKey,
      connectionId: plan.connectionId,
      scriptName: record.scriptName,
      ...(plan.lastSyncDate ? { lastSyncDate: plan.lastSyncDate } : {}),
      variant: BASE_VARIANT,
    },
    limits: ctx.limits,
    host,
    // Lifecycle hooks and actions go first and use the reserved processes; syncs and onWebhook
    // runs are capped per integration and per script.
    fairness: {
      priority: plan.version.declaration.kind !== "sync",
      integration,
      script: `${integration}/${record.scriptName}`,
    },
    signal,
  });
}

/** The result of a run the runtime refused: failed at `at`, having taken no time. */
export function refusedRun(at: number, err: unknown): RunResult {
  return {
    status: "failed",
    startedAt: at,
    finishedAt: at,
    durationMs: 0,
    logs: [],
    logsTruncated: false,
    error: runtimeRefused(err),
  };
}
