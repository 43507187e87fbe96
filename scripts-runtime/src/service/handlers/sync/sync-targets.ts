import type { ScriptVersionRecord } from "../../../store/records.ts";
import type { ScriptsServiceContext } from "../../context.ts";
import type { ScheduleKey } from "../../store/records.ts";
import { callService } from "../call-service.ts";
import { connectionsOf, deployedSyncs } from "../deployed-syncs.ts";
import { required } from "../record-scope.ts";

/** A request naming syncs of an integration, for one connection or all. */
export interface SyncsRequest {
  providerConfigKey: string;
  syncs: string[];
  connectionId: string;
}

/** Everything a request names, checked (integration, syncs, connection) before anything changes. */
export async function syncTargets(
  ctx: ScriptsServiceContext,
  req: SyncsRequest,
): Promise<{ key: string; keys: { version: ScriptVersionRecord; key: ScheduleKey }[] }> {
  const env = await ctx.environment();
  const key = required(req.providerConfigKey, "provider_config_key");
  await callService(ctx.clients().connection.getIntegration({ uniqueKey: key }));
  const versions = await deployedSyncs(ctx, env, key, req.syncs);
  const connectionIds = await connectionsOf(ctx, key, req.connectionId);
  const keys = connectionIds.flatMap((connectionId) =>
    versions.map((v) => ({
      version: v,
      key: { environmentId: env, providerConfigKey: key, scriptName: v.name, connectionId },
    })),
  );
  return { key, keys };
}
