import type { GetScriptRequest, ListScriptsRequest } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ScriptsServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { toScript, toScriptVersion } from "../../mappers.ts";
import { required } from "../record-scope.ts";

/** ListScripts: the latest version of each script, of one integration or all. */
export async function listScripts(ctx: ScriptsServiceContext, req: ListScriptsRequest) {
  const env = await ctx.environment();
  const latest = await ctx.scripts.listLatest(env, req.providerConfigKey || undefined);
  const scripts = [];
  for (const v of latest) scripts.push(toScript(v, await ctx.store.getOptions(env, v.providerConfigKey, v.name)));
  return { scripts };
}

/** GetScript: a script's latest version with its source, and every version. */
export async function getScript(ctx: ScriptsServiceContext, req: GetScriptRequest) {
  const env = await ctx.environment();
  const key = required(req.providerConfigKey, "provider_config_key");
  const name = required(req.name, "name");
  const latest = await ctx.scripts.getLatest(env, key, name);
  if (!latest) throw errors.unknownScript(key, name);
  const versions = await ctx.scripts.listVersions(env, key, name);
  return {
    script: toScript(latest, await ctx.store.getOptions(env, key, name)),
    source: latest.source,
    versions: versions.map(toScriptVersion),
  };
}
