import type { ServiceImpl } from "@connectrpc/connect";
import type { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { newId } from "@junction/platform";
import type { CompiledScript } from "../../compile/compiled-script.ts";
import type { ScriptDeclaration } from "../../declaration/script-declaration.ts";
import type { ScriptVersionRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { toScript, toScriptVersion } from "../mappers.ts";
import { scheduleForAllConnections } from "../scheduler/schedule-syncs.ts";
import type { SyncScheduler } from "../scheduler/sync-scheduler.ts";
import { withDeployLock } from "../deploy/deploy-lock.ts";
import { callService } from "./call-service.ts";

/** Script names: what /sync/trigger names, so plain and short. */
export const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "deployScript" | "listScripts" | "getScript" | "removeScript">;

/** DeployScript, ListScripts, GetScript, RemoveScript (spec: Upload and deploy). */
export function scriptHandlers(ctx: ScriptsServiceContext, scheduler: SyncScheduler): Handlers {
  const required = (value: string, path: string) => {
    if (!value) throw errors.invalidField(path, "is required");
    return value;
  };
  const options = (env: string, key: string, name: string) => ctx.store.getOptions(env, key, name);

  return {
    async deployScript(req) {
      const env = await ctx.environment();
      const key = required(req.providerConfigKey, "provider_config_key");
      const name = required(req.name, "name");
      if (!NAME_RE.test(name)) {
        throw errors.invalidField(
          "name",
          "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
        );
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
      return { script: toScript(version, await options(env, key, name)) };
    },

    async listScripts(req) {
      const env = await ctx.environment();
      const latest = await ctx.scripts.listLatest(env, req.providerConfigKey || undefined);
      const scripts = [];
      for (const v of latest) scripts.push(toScript(v, await options(env, v.providerConfigKey, v.name)));
      return { scripts };
    },

    async getScript(req) {
      const env = await ctx.environment();
      const key = required(req.providerConfigKey, "provider_config_key");
      const name = required(req.name, "name");
      const latest = await ctx.scripts.getLatest(env, key, name);
      if (!latest) throw errors.unknownScript(key, name);
      const versions = await ctx.scripts.listVersions(env, key, name);
      return {
        script: toScript(latest, await options(env, key, name)),
        source: latest.source,
        versions: versions.map(toScriptVersion),
      };
    },

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

/** A checked script to store as a new version of `name`. */
export interface NewVersion {
  environmentId: string;
  providerConfigKey: string;
  name: string;
  source: string;
  checked: { compiled: CompiledScript; declaration: ScriptDeclaration };
}

/** Stores a new version and brings the schedules in line with what it declares. */
export async function storeVersion(
  ctx: ScriptsServiceContext,
  scheduler: SyncScheduler,
  input: NewVersion,
): Promise<ScriptVersionRecord> {
  const { environmentId: env, providerConfigKey: key, name } = input;
  const now = ctx.clock.now();
  const version = await ctx.scripts.addVersion({
    id: newId("scr", now),
    environmentId: env,
    providerConfigKey: key,
    name,
    source: input.source,
    compiled: input.checked.compiled,
    declaration: input.checked.declaration,
    createdAt: now,
  });
  if (version.declaration.kind === "sync") {
    if ((await scheduleForAllConnections(ctx, version)) > 0) scheduler.poke();
  } else {
    // A sync replaced by a lifecycle script of the same name runs on its schedule no more.
    await ctx.store.removeScriptSchedules(env, key, name);
  }
  ctx.logger.info("script deployed", {
    integration: key,
    script: name,
    version: version.version,
    kind: version.declaration.kind,
  });
  return version;
}

/** Removes every version of a script, its schedules and its options; how many versions there were. */
export async function removeScript(ctx: ScriptsServiceContext, env: string, key: string, name: string) {
  const removed = await ctx.scripts.remove(env, key, name);
  if (removed === 0) return 0;
  await ctx.store.removeScriptSchedules(env, key, name);
  await ctx.store.removeOptions(env, key, name);
  ctx.logger.info("script removed", { integration: key, script: name, versions: removed });
  return removed;
}
