import { SyncMode, type TriggerSyncsRequest } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ScriptVersionRecord } from "../../../store/records.ts";
import type { ScriptsServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { toScriptRun } from "../../mappers.ts";
import type { SyncRuns } from "../../scheduler/sync-runs.ts";
import type { StartedRun } from "../../script-runner.ts";
import { callService } from "../call-service.ts";
import { connectionsOf, deployedSyncs } from "../deployed-syncs.ts";
import { required } from "../record-scope.ts";
import { resetRecords } from "../reset-records.ts";

/** TriggerSyncs: the named syncs (all by default) run now for one connection or all of the integration. */
export async function triggerSyncs(ctx: ScriptsServiceContext, syncs: SyncRuns, req: TriggerSyncsRequest) {
  const env = await ctx.environment();
  const key = required(req.providerConfigKey, "provider_config_key");
  if (req.syncMode !== SyncMode.UNSPECIFIED && !SyncMode[req.syncMode]) {
    throw errors.invalidField("sync_mode", "must be incremental or full_refresh");
  }
  if (!req.connectionId) await callService(ctx.clients().connection.getIntegration({ uniqueKey: key }));
  const connectionIds = await connectionsOf(ctx, key, req.connectionId);
  const versions = await deployedSyncs(ctx, env, key, req.syncs);
  const mode = req.syncMode === SyncMode.FULL_REFRESH ? "full_refresh" : "incremental";
  const started: StartedRun[] = [];
  const queued: { name: string; connectionId: string }[] = [];
  const now = ctx.clock.now();
  for (const connectionId of connectionIds) {
    for (const version of versions) {
      const outcome = await triggerOne(ctx, syncs, env, key, connectionId, version, mode, req.emptyCache, now);
      if ("started" in outcome) started.push(outcome.started);
      else if ("queued" in outcome) queued.push({ name: version.name, connectionId });
    }
  }
  for (const run of started)
    void run.finished.catch((err: unknown) => ctx.logger.error("sync run not recorded", { error: err }));
  ctx.logger.info("syncs triggered", {
    integration: key,
    connectionId: req.connectionId || null,
    syncs: versions.map((v) => v.name),
    runs: started.length,
    queued: queued.length,
  });
  return { runs: started.map((r) => toScriptRun(r.record, false)), queued };
}

/** One sync triggered for one connection, its records (and, for a full refresh, its checkpoint) reset first. */
async function triggerOne(
  ctx: ScriptsServiceContext,
  syncs: SyncRuns,
  env: string,
  key: string,
  connectionId: string,
  version: ScriptVersionRecord,
  mode: "full_refresh" | "incremental",
  emptyCache: boolean,
  now: number,
) {
  const d = version.declaration;
  const scheduleKey = { environmentId: env, providerConfigKey: key, scriptName: version.name, connectionId };
  const due = d.kind === "sync" && d.autoStart ? now + d.frequencyMs : null;
  await resetRecords(ctx, scheduleKey, version, { checkpoint: mode === "full_refresh", records: emptyCache });
  return syncs.trigger(scheduleKey, version, mode, due);
}
