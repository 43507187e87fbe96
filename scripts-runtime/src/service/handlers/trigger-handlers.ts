import type { ServiceImpl } from "@connectrpc/connect";
import { type ScriptsService, SyncMode } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { notFound } from "@junction/platform";
import type { ScriptVersionRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { EVENTS, nameOf, toScriptRun } from "../mappers.ts";
import type { SyncRuns } from "../scheduler/sync-runs.ts";
import type { ScriptRunner, StartedRun } from "../script-runner.ts";
import type { ScheduleKey } from "../store/records.ts";
import { runLifecycleEvent } from "../triggers/lifecycle-runs.ts";
import { dispatchNotification } from "../triggers/webhook-dispatch.ts";
import { callService } from "./call-service.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "triggerSyncs" | "runLifecycleEvent" | "dispatchNotification">;

/** TriggerSyncs, RunLifecycleEvent and DispatchNotification: runs started by a caller (issue 6, Triggers). */
export function triggerHandlers(ctx: ScriptsServiceContext, runner: ScriptRunner, syncs: SyncRuns): Handlers {
  const required = (value: string, path: string) => {
    if (!value) throw errors.invalidField(path, "is required");
    return value;
  };
  const connectionMustExist = async (providerConfigKey: string, connectionId: string) =>
    callService(ctx.clients().connection.getConnection({ providerConfigKey, connectionId }));

  return {
    async triggerSyncs(req) {
      const env = await ctx.environment();
      const key = required(req.providerConfigKey, "provider_config_key");
      const connectionId = required(req.connectionId, "connection_id");
      if (req.syncMode !== SyncMode.UNSPECIFIED && !SyncMode[req.syncMode]) {
        throw errors.invalidField("sync_mode", "must be incremental or full_refresh");
      }
      await connectionMustExist(key, connectionId);
      const latest = await ctx.scripts.listLatest(env, key);
      const deployed = new Map(latest.filter((v) => v.declaration.kind === "sync").map((v) => [v.name, v]));
      const names = req.syncs.length > 0 ? [...new Set(req.syncs)] : [...deployed.keys()];
      if (names.length === 0) throw notFound("unknown_sync", `Integration "${key}" has no deployed sync.`);
      const unknown = names.filter((n) => !deployed.has(n));
      if (unknown.length > 0) {
        const lifecycle = unknown.filter((n) => latest.some((v) => v.name === n));
        throw errors.unknownSync(
          key,
          unknown,
          lifecycle.length > 0 ? `${lifecycle.map((n) => `"${n}"`).join(", ")}: a lifecycle script, not a sync.` : "",
        );
      }
      const versionOf = (k: ScheduleKey) => deployed.get(k.scriptName) as ScriptVersionRecord;
      const keys = names.map((scriptName) => ({
        environmentId: env,
        providerConfigKey: key,
        scriptName,
        connectionId,
      }));
      const now = ctx.clock.now();
      const busy = await syncs.acquireAll(keys, (k) => {
        const d = versionOf(k).declaration;
        return d.kind === "sync" && d.autoStart ? now + d.frequencyMs : null;
      });
      if (busy.length > 0) throw errors.syncAlreadyRunning(busy[0] as string, connectionId);
      const incremental = req.syncMode !== SyncMode.FULL_REFRESH;
      const started: StartedRun[] = [];
      for (const [i, k] of keys.entries()) {
        try {
          const run = await syncs.runLeased(k, versionOf(k), "manual", incremental);
          if (run) started.push(run);
        } catch (err) {
          for (const rest of keys.slice(i + 1)) await ctx.store.releaseLease(rest, ctx.instanceId, null);
          throw err;
        }
      }
      for (const run of started)
        void run.finished.catch((err: unknown) => ctx.logger.error("sync run not recorded", { error: err }));
      ctx.logger.info("syncs triggered", { integration: key, connectionId, syncs: names, runs: started.length });
      return { runs: started.map((r) => toScriptRun(r.record, false)) };
    },

    async runLifecycleEvent(req) {
      const env = await ctx.environment();
      const event = nameOf(EVENTS, req.event);
      if (!event) throw errors.invalidField("event", "must be post-connection-creation or pre-connection-deletion");
      const key = required(req.providerConfigKey, "provider_config_key");
      const connectionId = required(req.connectionId, "connection_id");
      await connectionMustExist(key, connectionId);
      const finished = await runLifecycleEvent(ctx, runner, env, key, connectionId, event);
      return { runs: finished.map((f) => toScriptRun(f.record, true)) };
    },

    async dispatchNotification(req) {
      const env = await ctx.environment();
      required(req.providerConfigKey, "provider_config_key");
      required(req.notificationId, "notification_id");
      const { handled, subscribed } = await dispatchNotification(ctx, env, req);
      return { handledConnectionIds: handled, integrationHasSubscriptions: subscribed };
    },
  };
}
