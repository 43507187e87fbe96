import { createHash } from "node:crypto";
import { RunStatus, SyncState } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ScriptRunRecord, ScriptVersionRecord } from "../../../store/records.ts";
import type { ScriptsServiceContext } from "../../context.ts";
import { BASE_VARIANT } from "../../host/sync-run-data.ts";
import { STATUSES } from "../../mappers.ts";
import type { SyncRuns } from "../../scheduler/sync-runs.ts";
import type { ScheduleKey } from "../../store/records.ts";

/** Where one sync stands for one connection, from its schedule row and its latest run. */
export async function statusOf(
  ctx: ScriptsServiceContext,
  syncs: SyncRuns,
  key: ScheduleKey,
  version: ScriptVersionRecord,
) {
  const row = await ctx.store.getSchedule(key);
  const latest = await latestRun(ctx, key);
  const now = ctx.clock.now();
  const running = syncs.isRunningHere(key) || (row?.leaseHolder != null && (row.leaseUntil ?? 0) > now);
  const d = version.declaration;
  const paused = row ? row.nextDueAt === null : !(d.kind === "sync" && d.autoStart);
  const failed = latest !== null && latest.status !== "running" && latest.status !== "succeeded";
  const records = await syncRecords(ctx, key, d.kind === "sync" ? Object.keys(d.models ?? {}) : []);
  const state = running ? SyncState.RUNNING : paused ? SyncState.PAUSED : failed ? SyncState.ERROR : SyncState.SUCCESS;
  return {
    id: syncId(key),
    connectionId: key.connectionId,
    name: key.scriptName,
    state,
    finishedAtMs: BigInt(running ? 0 : (latest?.finishedAt ?? 0)),
    nextScheduledAtMs: BigInt(row?.nextDueAt ?? 0),
    frequency: row?.frequency?.text ?? (d.kind === "sync" ? d.frequency : ""),
    latestRunId: latest?.id ?? "",
    latestRunStatus: latest ? STATUSES[latest.status] : RunStatus.UNSPECIFIED,
    ...records,
  };
}

/** Nango's `recordCount` (per model of the sync; every model of the connection when it declares none) and `checkpoint`. */
async function syncRecords(ctx: ScriptsServiceContext, key: ScheduleKey, declared: string[]) {
  const scope = {
    environmentId: key.environmentId,
    providerConfigKey: key.providerConfigKey,
    connectionId: key.connectionId,
  };
  const recordCount: Record<string, bigint> = {};
  for (const m of await ctx.records.models(scope)) {
    if (m.variant !== BASE_VARIANT || (declared.length > 0 && !declared.includes(m.model))) continue;
    recordCount[m.model] = BigInt(m.count);
  }
  const checkpoint = await ctx.records.getCheckpoint({ ...scope, syncName: key.scriptName, variant: BASE_VARIANT });
  return { recordCount, ...(checkpoint ? { checkpoint } : {}) };
}

/** The latest run of a sync's exec for a connection (schedule or trigger; not its onWebhook runs). */
async function latestRun(ctx: ScriptsServiceContext, key: ScheduleKey): Promise<ScriptRunRecord | null> {
  const filter = {
    providerConfigKey: key.providerConfigKey,
    scriptName: key.scriptName,
    connectionId: key.connectionId,
  };
  const [scheduled, manual] = await Promise.all(
    (["schedule", "manual"] as const).map(
      async (trigger) => (await ctx.runs.list(key.environmentId, { ...filter, trigger, limit: 1 }))[0] ?? null,
    ),
  );
  if (!scheduled || !manual) return scheduled ?? manual ?? null;
  return scheduled.id > manual.id ? scheduled : manual;
}

/** A stable id per (sync, connection): Junction keeps no sync record of its own. */
function syncId(key: ScheduleKey): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([key.environmentId, key.providerConfigKey, key.scriptName, key.connectionId]))
    .digest("hex");
  return `sync_${digest.slice(0, 26)}`;
}
