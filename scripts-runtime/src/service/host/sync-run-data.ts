import { providerAdapter } from "@junction/providers";
import type { SyncDeclaration } from "../../declaration/script-declaration.ts";
import type { Checkpoint, WriteCounts } from "../../records/record-store.ts";
import type { JsonValue, RunResult } from "../../runtime/run-types.ts";
import type { ScriptRunRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import type { RunPlan } from "../script-runner.ts";
import { enqueueSyncWebhooks } from "../triggers/sync-webhook.ts";
import { createRunRecords, type RunRecords } from "./run-records.ts";

/** The variant of every sync run (Junction runs no sync variants yet). */
export const BASE_VARIANT = "base";

/** A run's record API, and what to do once the run has ended. */
export interface RunData {
  records: RunRecords;
  /** For a sync: deletes per `trackDeletes`, then its `sync` webhooks. Never throws. */
  finish(result: RunResult): Promise<void>;
  /** After `finish`: the sync's checkpoint is not what it was when the run started. */
  checkpointMoved(): boolean;
}

/**
 * Whether a sync run resumes one stopped before it ended: the connection's previous run of the
 * sync's exec did not succeed, and left a checkpoint to resume from.
 */
async function resumes(ctx: ScriptsServiceContext, record: ScriptRunRecord, from: Checkpoint | null) {
  if (from === null) return false;
  const recent = await ctx.runs.list(record.environmentId, {
    providerConfigKey: record.providerConfigKey,
    scriptName: record.scriptName,
    ...(record.connectionId ? { connectionId: record.connectionId } : {}),
    limit: 20,
  });
  // A sync never overlaps itself: a previous run still `running` is one whose end is being recorded
  // (a resume starts before the stopped run is written) or whose process died.
  const previous = recent.find((r) => r.id !== record.id && r.entry === "exec");
  return previous !== undefined && previous.status !== "succeeded";
}

/** The pagination settings of the integration's provider, and its base URL when fixed. */
async function pagination(ctx: ScriptsServiceContext, providerConfigKey: string): Promise<JsonValue> {
  const res = await ctx.clients().connection.getIntegration({ uniqueKey: providerConfigKey });
  const definition = res.integration ? providerAdapter(res.integration.provider) : undefined;
  if (!definition?.paginate) return null;
  const answer: { [key: string]: JsonValue } = { paginate: definition.paginate as unknown as JsonValue };
  if (!definition.baseUrl.includes("${")) answer.baseUrl = definition.baseUrl.replace(/\/$/, "");
  return answer;
}

/** The run's changes with every declared model in them, unchanged ones counted as nothing changed. */
function withDeclaredModels(
  changes: Map<string, WriteCounts>,
  models: Record<string, unknown> | null,
): Map<string, WriteCounts> {
  for (const model of Object.keys(models ?? {})) {
    if (!changes.has(model)) changes.set(model, { added: 0, updated: 0, deleted: 0, unchanged: 0 });
  }
  return changes;
}

/** Builds the record API of a run; a sync's run also sends its webhooks when it ends. */
export async function openRunData(
  ctx: ScriptsServiceContext,
  record: ScriptRunRecord,
  plan: RunPlan,
): Promise<RunData> {
  const declaration = plan.version.declaration;
  const sync = declaration.kind === "sync" ? (declaration as SyncDeclaration) : null;
  const models = sync?.models && Object.keys(sync.models).length ? sync.models : null;
  const scope = {
    environmentId: record.environmentId,
    providerConfigKey: record.providerConfigKey,
    connectionId: plan.connectionId,
    variant: BASE_VARIANT,
  };
  const checkpointKey = { ...scope, syncName: record.scriptName };
  const from = sync ? await ctx.records.getCheckpoint(checkpointKey).catch(() => null) : null;
  const resuming = sync !== null && plan.entry === "exec" && (await resumes(ctx, record, from).catch(() => false));
  let moved = false;
  const records = createRunRecords({
    store: ctx.records,
    now: () => ctx.clock.now(),
    scope,
    syncName: record.scriptName,
    models,
    startedAt: record.startedAt,
    maxRecordsPerRun: ctx.config.maxRecordsPerRun,
    pagination: () => pagination(ctx, record.providerConfigKey),
    environmentVariables: ctx.config.environmentVariables,
    resuming,
  });
  const finish = async (result: RunResult) => {
    if (!sync) return;
    try {
      const success = result.status === "succeeded";
      if (success && sync.trackDeletes) {
        for (const model of records.changes().keys()) await records.deleteRecordsFromPreviousExecutions(model);
      }
      const changes = withDeclaredModels(records.changes(), models);
      const ran = [...changes.keys()].map((model) => ({ model, variant: BASE_VARIANT }));
      await ctx.records.retention.markRun(scope, ran, result.finishedAt);
      const to: Checkpoint | null = await ctx.records.getCheckpoint(checkpointKey);
      moved = JSON.stringify(to) !== JSON.stringify(from);
      await enqueueSyncWebhooks(ctx, {
        run: record,
        variant: BASE_VARIANT,
        syncType: plan.entry === "onWebhook" ? "WEBHOOK" : plan.lastSyncDate ? "INCREMENTAL" : "INITIAL",
        changes,
        checkpoints: from || to ? { from, to } : null,
        success,
        error: result.error ?? null,
        endedAt: result.finishedAt,
      });
    } catch (err) {
      ctx.logger.error("sync run's records not finished", { runId: record.id, error: err });
    }
  };
  return { records, finish, checkpointMoved: () => moved };
}
