import type { DispatchNotificationRequest } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { webhookHeaderNames } from "@junction/providers";
import type { ScriptVersionRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { childMsgId, enqueueScriptJob } from "./script-jobs.ts";

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
  for (const connectionId of n.connectionIds) {
    for (const sync of syncs) {
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
  return { handled: forwardToo ? [] : [...n.connectionIds], subscribed };
}
