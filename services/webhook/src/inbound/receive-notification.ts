import { type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { queues } from "@junction/bus";
import { NotificationReceivedSchema } from "@junction/contracts/events/v1/events_pb";
import type {
  ReceiveNotificationRequest,
  ReceiveNotificationResponseSchema,
} from "@junction/contracts/webhook/v1/webhook_service_pb";
import { newId } from "@junction/platform";
import type { NotificationItem } from "@junction/providers";
import type { WebhookServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { CREDENTIAL_HEADERS, headerProblem } from "./notification-headers.ts";
import { type ChannelChecked, checkToken } from "./check-token.ts";
import { receiveOne } from "./receive-one.ts";
import {
  batchEvent,
  batchItem,
  batchItemKey,
  bodyDigest,
  checkedReading,
  type ReceivedRequest,
} from "./notification-event.ts";

export type ReceiveResult = MessageInitShape<typeof ReceiveNotificationResponseSchema>;

/**
 * One request of ReceiveNotifications (spec: Inbound webhook endpoint): checks that the webhook URL
 * names a known integration, refuses a body above the provider's limit (its adapter's), and lets the
 * adapter's `read` say what the request is. A handshake is answered as the adapter says, nothing
 * recorded. Notifications (one, or a batch of at most the adapter's `maxItems`, one job for all its
 * items) are each recorded durably on the inbound queue, body, content type and query included, with
 * what the adapter read of them (so the worker reads none again), before the answer. Matching and
 * forwarding happen after the answer, in the inbound worker.
 *
 * Each fact is looked up once, where it is first needed, and travels with the notification (the
 * rules: docs/architecture.md, "A notification"): the integration here (`webhookUrl`, how its
 * requests are read, before the 2xx); the channel here (its token, whether the registry holds it, and
 * its connection, recorded with the item); the connections, the integration as it is then (deleted:
 * not forwarded) and its forwarding by the worker's one match call. Duplicates (a
 * single-notification provider's are answered `duplicate: true` with the first notification's id):
 * one atomic claim decides, made here in the job's own transaction where the store and the bus share
 * a file (receipt-claim.ts), else by the worker, receipt then only reading the key for its answer
 * (a claim made apart from the job would stay behind whenever recording failed, and the resend would
 * be lost as a duplicate).
 *
 * Intake limits (intake/intake-limits.ts): before reading, the integration's rate
 * and pending-work cap; before recording, the channels' rates. Over one, nothing is recorded and the
 * answer is `throttled` (the gateway's 503 with Retry-After, which upstreams retry). A strict
 * integration's notification whose channel the registry does not hold is dropped (`unknown_channel`).
 */
export async function receiveNotification(
  ctx: WebhookServiceContext,
  req: ReceiveNotificationRequest,
): Promise<ReceiveResult> {
  const environmentId = await ctx.environment();
  if (req.environmentId !== environmentId) throw errors.unknownWebhookUrl();
  const problem = headerProblem(req.headers);
  if (problem) throw errors.invalidNotification(problem);
  const found = await ctx.integrations.webhookUrl(req.providerConfigKey);
  if (!found) throw errors.unknownWebhookUrl();
  if (req.body.byteLength > found.bodyLimitBytes) throw errors.notificationTooLarge(found.bodyLimitBytes);
  const now = ctx.clock.now();
  const admitted = ctx.limits.admit(environmentId, req.providerConfigKey, now);
  // Most requests are admitted at once: no await (and no microtask) for them.
  const throttled = admitted instanceof Promise ? await admitted : admitted;
  if (throttled) return { throttled };

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (!CREDENTIAL_HEADERS.has(name)) headers[name] = value;
  // The reader sees the credential headers (a push's signed bearer token); nothing past it does.
  const reading = found.read(
    { headers: req.headers, body: req.body, query: req.query, contentType: req.contentType },
    { settings: found.settings, now, fetch: ctx.readerFetch },
  );
  // Most readers answer at once: no await (and no microtask) for them.
  const settled = reading instanceof Promise ? await reading : reading;
  if (settled.kind === "refused") {
    ctx.counts.notifications.inc(req.providerConfigKey, "refused");
    ctx.logger.warn("notification refused by its provider's reader", {
      providerConfigKey: req.providerConfigKey,
      status: settled.status,
      // Not `code`: the logger redacts that key (an OAuth code).
      refusal: settled.code,
    });
  }
  const checked = checkedReading(settled, found.maxItems);
  if (checked.kind === "handshake") {
    ctx.logger.debug("provider handshake answered", {
      providerConfigKey: req.providerConfigKey,
      status: checked.status,
    });
    const { status, contentType, body } = checked;
    ctx.limits.take(environmentId, req.providerConfigKey, [], now);
    return { handshake: { status, contentType, body } };
  }
  const received: ReceivedRequest = {
    environmentId,
    providerConfigKey: req.providerConfigKey,
    headers,
    body: req.body,
    contentType: req.contentType,
    query: req.query,
    now,
    strict: found.integration.strictChannels,
  };
  const accept = checked.acceptStatus === 200 ? {} : { acceptStatus: checked.acceptStatus };
  if (found.maxItems > 1) return { ...(await receiveBatch(ctx, received, checked.items)), ...accept };
  const [item] = checked.items as [NotificationItem];
  return { ...(await receiveOne(ctx, received, item)), ...accept };
}

/**
 * A batch provider's notifications: each item recorded as its own notification, all of them in one
 * job (batchEvent: the request's headers and body are written once, not once per item) enqueued
 * before the answer (failing, it fails the request, so the upstream retries; the items' keys make
 * the retry forward nothing twice). An item whose channel token does not match is dropped alone, and
 * logged: the request still answers the provider's accept status, so that the upstream does not
 * resend the others.
 */
async function receiveBatch(
  ctx: WebhookServiceContext,
  req: ReceivedRequest,
  items: NotificationItem[],
): Promise<ReceiveResult> {
  let digest: string | undefined;
  const checks = await Promise.all(items.map((item) => checkToken(ctx, req, item)));
  const events = [];
  const channelIds: (string | undefined)[] = [];
  for (const [index, item] of items.entries()) {
    const channelChecked = checks[index] as ChannelChecked;
    if (channelChecked === "unknown") {
      ctx.logger.debug("batch item dropped: strict integration, channel unknown to the registry", {
        providerConfigKey: req.providerConfigKey,
        channelId: item.channelId,
        item: index,
      });
      continue;
    }
    if (channelChecked === "mismatch") {
      ctx.logger.warn("batch item dropped: its channel token does not match the channel's", {
        providerConfigKey: req.providerConfigKey,
        channelId: item.channelId,
        item: index,
      });
      continue;
    }
    let dedupeKey = item.dedupeKey ?? "";
    if (dedupeKey === "" && (item.channelId === undefined || item.messageNumber === null)) {
      digest ??= bodyDigest(req.body);
      dedupeKey = batchItemKey(digest, index);
    }
    events.push(batchItem(newId("ntf", req.now), item, channelChecked, dedupeKey));
    channelIds.push(item.channelId);
  }
  const throttled = ctx.limits.take(req.environmentId, req.providerConfigKey, channelIds, req.now);
  if (throttled) return { throttled };
  // One job for the whole request: its items durably recorded together, the request's parts once.
  if (events.length > 0) {
    const event = batchEvent(req, events);
    await ctx.bus.enqueue(queues.webhookInbound, toBinary(NotificationReceivedSchema, event), { decoded: event });
  }
  ctx.limits.pending.received(req.environmentId, req.providerConfigKey, events.length, req.now);
  const ids = events.map((e) => e.id);
  ctx.counts.notifications.add(ids.length, req.providerConfigKey, "received");
  ctx.logger.debug("notifications recorded", {
    providerConfigKey: req.providerConfigKey,
    items: items.length,
    recorded: ids.length,
    bodyLength: req.body.byteLength,
  });
  return { notificationId: ids[0] ?? "", notificationIds: ids };
}
