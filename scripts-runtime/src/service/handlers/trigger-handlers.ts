import type { ServiceImpl } from "@connectrpc/connect";
import { type ScriptsService, SyncMode } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { EVENTS, nameOf, toScriptRun } from "../mappers.ts";
import type { SyncRuns } from "../scheduler/sync-runs.ts";
import type { ScriptRunner, StartedRun } from "../script-runner.ts";
import { forgetRecords, runLifecycleEvent } from "../triggers/lifecycle-runs.ts";
import { dispatchNotification } from "../triggers/webhook-dispatch.ts";
import { WebhookRunLimiter } from "../triggers/webhook-run-limiter.ts";
import { callService } from "./call-service.ts";
import { resetRecords } from "./reset-records.ts";
import { connectionsOf, deployedSyncs } from "./deployed-syncs.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "triggerSyncs" | "runLifecycleEvent" | "dispatchNotification">;

/** TriggerSyncs, RunLifecycleEvent and DispatchNotification: runs started by a caller (spec: Triggers). */
export function triggerHandlers(ctx: ScriptsServiceContext, runner: ScriptRunner, syncs: SyncRuns): Handlers {
  const webhookLimiter = new WebhookRunLimiter({
    runsPerWindow: ctx.config.webhookRunsPerWindow,
    windowMs: ctx.config.webhookWindowMs,
    pauseMs: ctx.config.webhookPauseMs,
  });
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
      if (req.syncMode !== SyncMode.UNSPECIFIED && !SyncMode[req.syncMode]) {
        throw errors.invalidField("sync_mode", "must be incremental or full_refresh");
      }
      if (!req.connectionId) await callService(ctx.clients().connection.getIntegration({ uniqueKey: key }));
      const connectionIds = await connectionsOf(ctx, key, req.connectionId);
      const versions = await deployedSyncs(ctx, env, key, req.syncs);
      const now = ctx.clock.now();
      const mode = req.syncMode === SyncMode.FULL_REFRESH ? "full_refresh" : "incremental";
      const started: StartedRun[] = [];
      const queued: { name: string; connectionId: string }[] = [];
      for (const connectionId of connectionIds) {
        for (const version of versions) {
          const d = version.declaration;
          const scheduleKey = { environmentId: env, providerConfigKey: key, scriptName: version.name, connectionId };
          const due = d.kind === "sync" && d.autoStart ? now + d.frequencyMs : null;
          await resetRecords(ctx, scheduleKey, version, {
            checkpoint: mode === "full_refresh",
            records: req.emptyCache,
          });
          const outcome = await syncs.trigger(scheduleKey, version, mode, due);
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
    },

    async runLifecycleEvent(req) {
      const env = await ctx.environment();
      const event = nameOf(EVENTS, req.event);
      if (!event) throw errors.invalidField("event", "must be post-connection-creation or pre-connection-deletion");
      const key = required(req.providerConfigKey, "provider_config_key");
      const connectionId = required(req.connectionId, "connection_id");
      await connectionMustExist(key, connectionId);
      const finished = await runLifecycleEvent(ctx, runner, env, key, connectionId, event);
      if (event === "pre-connection-deletion") await forgetRecords(ctx, env, key, connectionId);
      return { runs: finished.map((f) => toScriptRun(f.record, true)) };
    },

    async dispatchNotification(req) {
      const env = await ctx.environment();
      required(req.providerConfigKey, "provider_config_key");
      required(req.notificationId, "notification_id");
      const { handled, subscribed } = await dispatchNotification(ctx, webhookLimiter, env, req);
      return { handledConnectionIds: handled, integrationHasSubscriptions: subscribed };
    },
  };
}
