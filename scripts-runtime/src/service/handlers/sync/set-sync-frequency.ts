import type { SetSyncFrequencyRequest } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { parseFrequency } from "../../../declaration/frequency.ts";
import type { ScriptVersionRecord } from "../../../store/records.ts";
import type { ScriptsServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import type { SyncScheduler } from "../../scheduler/sync-scheduler.ts";
import { callService } from "../call-service.ts";
import { connectionsOf, deployedSyncs } from "../deployed-syncs.ts";
import { required } from "../record-scope.ts";

/** SetSyncFrequency: a connection's own frequency for a sync, or back to the script's (none given). */
export async function setSyncFrequency(
  ctx: ScriptsServiceContext,
  scheduler: SyncScheduler,
  req: SetSyncFrequencyRequest,
) {
  const env = await ctx.environment();
  const key = required(req.providerConfigKey, "provider_config_key");
  const connectionId = required(req.connectionId, "connection_id");
  const name = required(req.syncName, "sync_name");
  const own = req.frequency === undefined ? null : parseFrequency(req.frequency);
  if (own && !own.ok) throw errors.invalidFrequency(own.reason);
  await callService(ctx.clients().connection.getIntegration({ uniqueKey: key }));
  const [version] = await deployedSyncs(ctx, env, key, [name]);
  await connectionsOf(ctx, key, connectionId);
  const d = (version as ScriptVersionRecord).declaration;
  if (d.kind !== "sync") throw errors.unknownSync(key, [name]);
  const frequency = own?.ok ? { text: own.frequency.text, ms: own.frequency.ms } : null;
  const scheduleKey = { environmentId: env, providerConfigKey: key, scriptName: name, connectionId };
  await ctx.store.setFrequency(scheduleKey, frequency, d.frequencyMs, ctx.clock.now());
  scheduler.poke();
  // As Nango answers: the interval it read from the new frequency, or the script's as written.
  const interval = own?.ok ? own.frequency.interval : d.frequency;
  ctx.logger.info("sync frequency set for a connection", {
    integration: key,
    script: name,
    connectionId,
    interval,
  });
  return { frequency: interval };
}
