import { newId } from "@junction/platform";
import type { CompiledScript } from "../../../compile/compiled-script.ts";
import type { ScriptDeclaration } from "../../../declaration/script-declaration.ts";
import type { ScriptVersionRecord } from "../../../store/records.ts";
import type { ScriptsServiceContext } from "../../context.ts";
import { scheduleForAllConnections } from "../../scheduler/schedule-syncs.ts";
import type { SyncScheduler } from "../../scheduler/sync-scheduler.ts";

/** Script names: what /sync/trigger names, so plain and short. */
export const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

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
