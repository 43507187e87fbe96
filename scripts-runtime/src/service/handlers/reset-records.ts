import type { ScriptVersionRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { BASE_VARIANT } from "../host/sync-run-data.ts";
import type { ScheduleKey } from "../store/records.ts";

/**
 * What Nango's trigger options clear before a run: a full refresh (`reset`) the sync's checkpoint,
 * `emptyCache` the records of its models for the connection (every model of the connection when the
 * sync declares none).
 */
export async function resetRecords(
  ctx: ScriptsServiceContext,
  key: ScheduleKey,
  version: ScriptVersionRecord,
  what: { checkpoint: boolean; records: boolean },
): Promise<void> {
  const scope = {
    environmentId: key.environmentId,
    providerConfigKey: key.providerConfigKey,
    connectionId: key.connectionId,
  };
  if (what.checkpoint) {
    await ctx.records.clearCheckpoint({ ...scope, syncName: key.scriptName, variant: BASE_VARIANT });
  }
  if (!what.records) return;
  const d = version.declaration;
  const models = d.kind === "sync" ? Object.keys(d.models ?? {}) : [];
  let removed = 0;
  if (models.length === 0) removed = await ctx.records.clear(scope);
  for (const model of models) removed += await ctx.records.clear(scope, { model, variant: BASE_VARIANT });
  ctx.logger.info("records emptied before a sync run", {
    integration: key.providerConfigKey,
    sync: key.scriptName,
    removed,
  });
}
