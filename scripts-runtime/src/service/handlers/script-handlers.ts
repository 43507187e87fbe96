import type { ServiceImpl } from "@connectrpc/connect";
import type { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ScriptsServiceContext } from "../context.ts";
import { withDeployLock } from "../deploy/deploy-lock.ts";
import { errors } from "../errors.ts";
import type { SyncScheduler } from "../scheduler/sync-scheduler.ts";
import { required } from "./record-scope.ts";
import { deployScript } from "./script/deploy-script.ts";
import { getScript, listScripts } from "./script/read-scripts.ts";
import { removeScript } from "./script/script-versions.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "deployScript" | "listScripts" | "getScript" | "removeScript">;

/** DeployScript, ListScripts, GetScript, RemoveScript (spec: Upload and deploy), under `script/`. */
export function scriptHandlers(ctx: ScriptsServiceContext, scheduler: SyncScheduler): Handlers {
  return {
    deployScript: (req) => deployScript(ctx, scheduler, req),
    listScripts: (req) => listScripts(ctx, req),
    getScript: (req) => getScript(ctx, req),
    async removeScript(req) {
      const env = await ctx.environment();
      const key = required(req.providerConfigKey, "provider_config_key");
      const name = required(req.name, "name");
      const removed = await withDeployLock(ctx, env, () => removeScript(ctx, env, key, name));
      if (removed === 0) throw errors.unknownScript(key, name);
      return { removedVersions: removed };
    },
  };
}
