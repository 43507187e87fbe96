import type { NotificationReceived } from "@junction/contracts/events/v1/events_pb";
import { MatchRule, type MatchNotificationResponse } from "@junction/contracts/connection/v1/connection_service_pb";
import type { Logger } from "@junction/platform";
import type { MatchedNotification } from "@junction/wiring";
import type { WebhookServiceContext } from "../context.ts";
import { acceptMessage } from "../delivery/accept-message.ts";
import { derivedMessageId, forwardBody } from "./forward-message.ts";

type Payload = Record<string, unknown>;

/** What the worker's one match call said of a notification. */
export type Match = Pick<
  MatchNotificationResponse,
  "connectionIds" | "rule" | "webhookUrlOverrides" | "provider" | "forwardWebhooks"
>;

/**
 * The sinks see a matched notification, then one forward message is stored per matched connection
 * (one without `connectionId` when none matched), its payload the adapter's when it gave one.
 */
export async function forwardMatched(
  ctx: WebhookServiceContext,
  n: NotificationReceived,
  match: Match,
  read: { channelId: string | undefined; messageNumber: number | null },
  log: () => Logger,
): Promise<void> {
  // The adapter's payload when it gave one (spec: Forwarded webhook message), else the headers.
  const payload = n.payload === undefined ? n.headers : (JSON.parse(new TextDecoder().decode(n.payload)) as Payload);
  // The connections a sink handled (a script took the notification): not forwarded to.
  const handled = new Set<string>();
  for (const sink of ctx.sinks ?? []) {
    const result = await sink.onNotification(sinkNotification(n, match, payload));
    for (const id of result?.handledConnectionIds ?? []) handled.add(id);
  }
  const fields = { rule: MatchRule[match.rule], connections: match.connectionIds.length, ...read };
  if (!match.forwardWebhooks) {
    log().info("notification matched; forwarding is off for this integration", fields);
    return;
  }
  // spec: matching rules 3–4: once per matching connection, once without connectionId when none.
  const targets = match.connectionIds.length > 0 ? match.connectionIds.filter((id) => !handled.has(id)) : [""];
  // Stored here, not sent through the delivery queue: this service owns the message store, and the
  // store is as durable as the queue (the job is acked only once every message is stored).
  await Promise.all(targets.map((connectionId) => acceptMessage(ctx, forwardMessage(n, match, payload, connectionId))));
  // Every matching connection's script may have taken it instead: then nothing was forwarded.
  if (targets.length > 0) ctx.counts.notifications.inc(n.providerConfigKey, "forwarded");
  ctx.logger.debug("notification matched and forwarded", {
    notificationId: n.id,
    providerConfigKey: n.providerConfigKey,
    ...fields,
    messages: targets.length,
  });
}

/** What a sink sees of a matched notification (the adapter's payload only when it gave one). */
function sinkNotification(n: NotificationReceived, match: Match, payload: Payload): MatchedNotification {
  return {
    notificationId: n.id,
    environmentId: n.environmentId,
    providerConfigKey: n.providerConfigKey,
    provider: match.provider,
    headers: n.headers,
    connectionIds: match.connectionIds,
    rule: match.rule,
    receivedAt: Number(n.receivedAtMs),
    body: n.body,
    contentType: n.contentType,
    query: n.query,
    payload: n.payload === undefined ? undefined : payload,
  };
}

/** The forward message of a notification to one connection ("" for none), its id derived from the notification's. */
function forwardMessage(n: NotificationReceived, match: Match, payload: Payload, connectionId: string) {
  return {
    id: derivedMessageId(n.id, connectionId),
    environmentId: n.environmentId,
    type: "forward" as const,
    providerConfigKey: n.providerConfigKey,
    connectionId,
    notificationId: n.id,
    // Known from the match: "" is none (no lookup per message).
    targetUrl: match.webhookUrlOverrides[connectionId] ?? "",
    body: forwardBody({ from: match.provider, providerConfigKey: n.providerConfigKey, payload, connectionId }),
    createdAt: Number(n.receivedAtMs),
  };
}
