import type { ServiceImpl } from "@connectrpc/connect";
import type { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { EVENTS, nameOf, toScriptRun } from "../mappers.ts";
import type { SyncRuns } from "../scheduler/sync-runs.ts";
import type { ScriptRunner } from "../script-runner.ts";
import { forgetRecords, runLifecycleEvent } from "../triggers/lifecycle-runs.ts";
import { dispatchNotification } from "../triggers/webhook-dispatch.ts";
import { WebhookRunLimiter } from "../triggers/webhook-run-limiter.ts";
import { callService } from "./call-service.ts";
import { required } from "./record-scope.ts";
import { triggerSyncs } from "./sync/trigger-syncs.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "triggerSyncs" | "runLifecycleEvent" | "dispatchNotification">;

/** TriggerSyncs, RunLifecycleEvent and DispatchNotification: runs started by a caller (spec: Triggers). */
export function triggerHandlers(ctx: ScriptsServiceContext, runner: ScriptRunner, syncs: SyncRuns): Handlers {
  const webhookLimiter = new WebhookRunLimiter({
    runsPerWindow: ctx.config.webhookRunsPerWindow,
    windowMs: ctx.config.webhookWindowMs,
    pauseMs: ctx.config.webhookPauseMs,
  });
  const connectionMustExist = async (providerConfigKey: string, connectionId: string) =>
    callService(ctx.clients().connection.getConnection({ providerConfigKey, connectionId }));

  return {
    triggerSyncs: (req) => triggerSyncs(ctx, syncs, req),

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
