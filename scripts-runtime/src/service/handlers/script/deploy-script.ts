import type { DeployScriptRequest } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ScriptsServiceContext } from "../../context.ts";
import { withDeployLock } from "../../deploy/deploy-lock.ts";
import { errors } from "../../errors.ts";
import { toScript } from "../../mappers.ts";
import type { SyncScheduler } from "../../scheduler/sync-scheduler.ts";
import { callService } from "../call-service.ts";
import { required } from "../record-scope.ts";
import { NAME_RE, storeVersion } from "./script-versions.ts";

/** DeployScript: one script checked and stored as a new version, under the environment's deploy lock. */
export async function deployScript(ctx: ScriptsServiceContext, scheduler: SyncScheduler, req: DeployScriptRequest) {
  const env = await ctx.environment();
  const key = required(req.providerConfigKey, "provider_config_key");
  const name = required(req.name, "name");
  if (!NAME_RE.test(name)) {
    throw errors.invalidField("name", "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
  }
  required(req.source, "source");
  await callService(ctx.clients().connection.getIntegration({ uniqueKey: key }));
  const filename = req.filename || `${name}.ts`;
  const checked = await (await ctx.runtime()).validateScript(req.source, filename);
  if (!checked.ok) throw errors.invalidScript(checked.error);
  const version = await withDeployLock(ctx, env, async () => {
    const stored = await storeVersion(ctx, scheduler, {
      environmentId: env,
      providerConfigKey: key,
      name,
      source: req.source,
      checked,
    });
    if (req.forwardWebhooksToo !== undefined) {
      await ctx.store.setOptions(env, key, name, { forwardWebhooksToo: req.forwardWebhooksToo });
    }
    return stored;
  });
  return { script: toScript(version, await ctx.store.getOptions(env, key, name)) };
}
