import type { DispatchNotificationRequest } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { webhookHeaderNames } from "@junction/providers";
import type { ScriptVersionRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { runningRecord } from "../../runtime/run-and-record.ts";
import { childMsgId, enqueueScriptJob } from "./script-jobs.ts";
import type { WebhookRunLimiter } from "./webhook-run-limiter.ts";

/** Where the resource state is ("sync", "exists"): the providers' headers, then the spec's. */
const RESOURCE_STATE_HEADERS = [...webhookHeaderNames("resourceState"), "x-provider-resource-state"];

/** Whether a sync's `webhookSubscriptions` take a notification: `*`, or its resource state by name. */
export function subscribes(sync: ScriptVersionRecord, headers: Readonly<Record<string, string>>): boolean {
  if (sync.declaration.kind !== "sync" || !sync.declaration.hasOnWebhook) return false;
  const subscriptions = sync.declaration.webhookSubscriptions;
  if (subscriptions.includes("*")) return true;
  const state = RESOURCE_STATE_HEADERS.map((h) => headers[h]).find((v) => v !== undefined);
  return state !== undefined && subscriptions.includes(state);
}

/**
 * A matched notification for the syncs that subscribe to webhooks (spec: Customer-side scripts, last
 * paragraph): each (sync, matched connection) gets a durable onWebhook job, de-duplicated per
 * notification, and those connections are handled: not forwarded, unless one of the syncs asks for
 * `forward_webhooks_too`. An unmatched notification has no connection to run for: it is forwarded.
 */
export async function dispatchNotification(
  ctx: ScriptsServiceContext,
  limiter: WebhookRunLimiter,
  environmentId: string,
  n: DispatchNotificationRequest,
): Promise<{ handled: string[]; subscribed: boolean }> {
  const latest = await ctx.scripts.listLatest(environmentId, n.providerConfigKey);
  const withSubscriptions = latest.filter(
    (v) => v.declaration.kind === "sync" && v.declaration.webhookSubscriptions.length > 0,
  );
  const syncs = withSubscriptions.filter((v) => subscribes(v, n.headers));
  const subscribed = withSubscriptions.length > 0;
  if (syncs.length === 0 || n.connectionIds.length === 0) return { handled: [], subscribed };
  let forwardToo = false;
  for (const sync of syncs) {
    const options = await ctx.store.getOptions(environmentId, n.providerConfigKey, sync.name);
    if (options?.forwardWebhooksToo) forwardToo = true;
  }
  const handled = new Set<string>();
  for (const connectionId of n.connectionIds) {
    for (const sync of syncs) {
      // A paused script's notifications are forwarded instead: nothing is lost while it rests.
      const admission = limiter.admit(`${environmentId}\n${n.providerConfigKey}\n${sync.name}`, ctx.clock.now());
      if (admission.kind === "pause-starts") await recordPause(ctx, sync, connectionId, admission);
      if (admission.kind !== "run") continue;
      handled.add(connectionId);
      await enqueueScriptJob(
        ctx.bus,
        {
          job: {
            case: "webhookRun",
            value: {
              environmentId,
              providerConfigKey: n.providerConfigKey,
              connectionId,
              scriptName: sync.name,
              notificationId: n.notificationId,
              provider: n.provider,
              headers: n.headers,
            },
          },
        },
        childMsgId("webhook-run", n.notificationId, connectionId, sync.name),
      );
    }
  }
  return { handled: forwardToo ? [] : [...handled], subscribed };
}

/** Logs the pause and records it as a failed webhook run of the script, so that it shows in its runs. */
async function recordPause(
  ctx: ScriptsServiceContext,
  sync: ScriptVersionRecord,
  connectionId: string,
  pause: { until: number; runs: number },
): Promise<void> {
  const { webhookRunsPerWindow, webhookWindowMs, webhookPauseMs } = ctx.config;
  const message =
    `onWebhook of "${sync.name}" was started ${pause.runs} times within ${webhookWindowMs} ms ` +
    `(at most ${webhookRunsPerWindow}): paused for ${webhookPauseMs} ms, until ${new Date(pause.until).toISOString()}. ` +
    "A script whose own API calls cause the notifications that run it loops this way. " +
    "Meanwhile its notifications are forwarded to the webhook endpoints.";
  ctx.logger.error("onWebhook runs paused", {
    integration: sync.providerConfigKey,
    script: sync.name,
    runs: pause.runs,
    windowMs: webhookWindowMs,
    pausedUntil: pause.until,
  });
  const at = ctx.clock.now();
  const record = runningRecord(
    {
      environmentId: sync.environmentId,
      providerConfigKey: sync.providerConfigKey,
      scriptName: sync.name,
      scriptVersion: sync.version,
      connectionId,
      trigger: "webhook",
    },
    "onWebhook",
    at,
  );
  await ctx.runs.insert(record);
  await ctx.runs.finish(sync.environmentId, record.id, {
    status: "failed",
    finishedAt: at,
    durationMs: 0,
    logs: [],
    logsTruncated: false,
    error: { name: "WebhookRunsPaused", message },
  });
}
