import type { ServiceImpl } from "@connectrpc/connect";
import type {
  DeployBundlesRequest,
  ScriptBundle,
  ScriptsService,
} from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ValidationResult } from "../../runtime/validate-script.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { callService } from "../handlers/call-service.ts";
import { NAME_RE, removeScript, storeVersion } from "../handlers/script/script-versions.ts";
import { toScriptVersion } from "../mappers.ts";
import type { SyncScheduler } from "../scheduler/sync-scheduler.ts";
import { withDeployLock } from "./deploy-lock.ts";
import { KINDS, planDeploy } from "./deploy-plan.ts";

const MODES = ["all", "integration", "single"];
type Checked = Extract<ValidationResult, { ok: true }>;

/** DeployBundles: `nango deploy` (its confirmation with `dry_run`). */
export function deployBundlesHandler(
  ctx: ScriptsServiceContext,
  scheduler: SyncScheduler,
): Pick<ServiceImpl<typeof ScriptsService>, "deployBundles"> {
  return {
    async deployBundles(req) {
      const env = await ctx.environment();
      if (!MODES.includes(req.mode)) throw errors.invalidField("mode", `must be one of ${MODES.join(", ")}`);
      const seen = new Set<string>();
      for (const [i, b] of req.bundles.entries()) {
        if (!NAME_RE.test(b.name)) {
          throw errors.invalidField(`bundles.${i}.name`, "must be 1-64 letters, digits, '.', '_' or '-'");
        }
        const id = `${b.providerConfigKey}/${b.name}`;
        if (seen.has(id)) throw errors.invalidField(`bundles.${i}.name`, `deploys ${id} twice`);
        seen.add(id);
      }
      // The plan is made under the lock, so that it sees what a deploy just before it did.
      const deploy = () => planAndDeploy(ctx, scheduler, env, req);
      return req.dryRun ? deploy() : withDeployLock(ctx, env, deploy);
    },
  };
}

/** Plans the deploy (what the CLI's confirmation shows) and, unless a dry run, checks and stores it. */
async function planAndDeploy(
  ctx: ScriptsServiceContext,
  scheduler: SyncScheduler,
  env: string,
  req: DeployBundlesRequest,
) {
  const counts = new Map<string, number>();
  for (const key of new Set(req.bundles.map((b) => b.providerConfigKey))) {
    await callService(ctx.clients().connection.getIntegration({ uniqueKey: key }));
  }
  const existing = await ctx.scripts.listLatest(env);
  for (const key of new Set([...req.bundles, ...existing].map((s) => s.providerConfigKey))) {
    const page = await ctx.clients().connection.listConnections({ providerConfigKey: key, limit: 1, page: 0 });
    counts.set(key, page.total);
  }
  const plan = planDeploy(req, existing, (key) => counts.get(key) ?? 0);
  const answer = {
    added: plan.added,
    updated: plan.updated,
    removed: plan.removed,
    removedModels: plan.removedModels,
  };
  if (req.dryRun) return answer;

  // Every bundle is checked before anything is stored: a deploy is all or nothing.
  const checked: Checked[] = [];
  for (const b of req.bundles) checked.push(await check(ctx, b));
  const deployed = [];
  for (const [i, b] of req.bundles.entries()) {
    const version = await storeVersion(ctx, scheduler, {
      environmentId: env,
      providerConfigKey: b.providerConfigKey,
      name: b.name,
      source: b.source || b.bundle,
      checked: checked[i] as Checked,
    });
    deployed.push(toScriptVersion(version));
  }
  for (const v of plan.removing) await removeScript(ctx, env, v.providerConfigKey, v.name);
  return { ...answer, deployed };
}

/** The bundle's declaration, checked against what the CLI says it is. */
async function check(ctx: ScriptsServiceContext, b: ScriptBundle): Promise<Checked> {
  const filename = b.filename || `${b.providerConfigKey}/${b.name}.ts`;
  const result = await (await ctx.runtime()).validateBundle(b.bundle, filename);
  if (!result.ok) throw errors.invalidScript(result.error);
  const declared = result.declaration;
  if (KINDS[declared.kind] !== b.kind) {
    const message = `the script declares a ${declared.kind} but was deployed as another kind`;
    throw errors.invalidScript({ message, file: filename, line: 1, column: 1 });
  }
  if (declared.kind === "sync" && b.autoStart !== undefined) declared.autoStart = b.autoStart;
  return result;
}
