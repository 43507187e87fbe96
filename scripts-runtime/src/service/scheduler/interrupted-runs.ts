import type { ScriptRunRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { BASE_VARIANT } from "../host/sync-run-data.ts";
import type { ScriptRunner } from "../script-runner.ts";
import type { SyncRuns } from "./sync-runs.ts";

/** Running sync runs looked at per pass and trigger (the oldest are found by the next passes). */
const BATCH = 1000;

/**
 * Finds sync runs left `running` by a scripts service that died (killed, out of memory, its machine
 * gone): a run still `running` after the longest it can take (its wait for a sandbox, its deadline
 * and the lease margin, as its lease) and not run by this process cannot end any more. Each is
 * recorded `interrupted`, counted, and, when the sync has a checkpoint, followed by a run that
 * resumes from it. Asked at the service's start and at each scheduler poll; every process sharing
 * the store may ask, `finish` writes each end once.
 */
export async function sweepInterruptedRuns(
  ctx: ScriptsServiceContext,
  runner: ScriptRunner,
  syncs: SyncRuns,
): Promise<number> {
  const { queueTimeoutMs, leaseMarginMs } = ctx.config;
  const now = ctx.clock.now();
  const before = now - (queueTimeoutMs + ctx.limits.timeoutMs + leaseMarginMs);
  const env = await ctx.environment();
  let found = 0;
  for (const trigger of ["schedule", "manual"] as const) {
    const running = await ctx.runs.list(env, { status: "running", trigger, limit: BATCH });
    for (const run of running) {
      if (run.startedAt > before || run.entry !== "exec" || runner.isRunning(run.id)) continue;
      if (await interrupt(ctx, runner, syncs, run, now)) found++;
    }
  }
  return found;
}

async function interrupt(
  ctx: ScriptsServiceContext,
  runner: ScriptRunner,
  syncs: SyncRuns,
  run: ScriptRunRecord,
  now: number,
): Promise<boolean> {
  const durationMs = Math.max(0, now - run.startedAt);
  const ended = await ctx.runs.finish(run.environmentId, run.id, {
    status: "interrupted",
    finishedAt: now,
    durationMs,
    logs: run.logs,
    logsTruncated: run.logsTruncated,
    error: {
      name: "RunInterrupted",
      message: "the scripts service running this sync stopped or died before the run ended",
    },
  });
  if (!ended) return false; // another process recorded it first
  runner.countInterrupted("sync", durationMs);
  const fields = { runId: run.id, integration: run.providerConfigKey, script: run.scriptName };
  ctx.logger.warn("sync run interrupted: its scripts service stopped or died", fields);
  if (run.connectionId === null) return true;
  const key = {
    environmentId: run.environmentId,
    providerConfigKey: run.providerConfigKey,
    scriptName: run.scriptName,
    connectionId: run.connectionId,
  };
  const checkpoint = await ctx.records.getCheckpoint({ ...key, syncName: run.scriptName, variant: BASE_VARIANT });
  if (checkpoint !== null) await syncs.queueResume(key, "interrupted");
  return true;
}
