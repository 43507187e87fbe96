import { toBinary } from "@bufbuild/protobuf";
import { queues } from "@junction/bus";
import { NotificationReceivedSchema } from "@junction/contracts/events/v1/events_pb";
import { DropReason } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { newId } from "@junction/platform";
import type { NotificationItem } from "@junction/providers";
import type { WebhookServiceContext } from "../context.ts";
import { checkToken } from "./check-token.ts";
import { type ItemCheck, notificationEvent, type ReceivedRequest } from "./notification-event.ts";
import { enqueueClaimed, type InboundJob, itemClaim, receiptClaims } from "./receipt-claim.ts";
import type { ReceiveResult } from "./receive-notification.ts";

/**
 * The one notification of a single-notification provider: a duplicate already recorded is answered
 * as such (the first one's id), and one whose channel token does not match is dropped (the gateway
 * answers 403). Where the store and the bus share a file (receipt-claim.ts), the claim rides on the
 * job's transaction, after the channel check; elsewhere the key is read before it, for the answer.
 */
export async function receiveOne(
  ctx: WebhookServiceContext,
  req: ReceivedRequest,
  item: NotificationItem,
): Promise<ReceiveResult> {
  const claims = receiptClaims(ctx);
  const before = claims ? null : await recordedAlready(ctx, req.environmentId, req.providerConfigKey, item);
  if (before) return duplicate(ctx, req, item, before);
  const channelChecked = await checkToken(ctx, req, item);
  if (channelChecked === "mismatch" || channelChecked === "unknown") return dropped(ctx, req, item, channelChecked);
  const throttled = ctx.limits.take(req.environmentId, req.providerConfigKey, [item.channelId], req.now);
  if (throttled) return { throttled };
  const id = newId("ntf", req.now);
  // Claimed here only once the token was checked: an unchecked notification (the registry was down)
  // may still be dropped by the worker's check, and must not hold its key against the genuine one.
  const claim =
    claims && channelChecked.checked
      ? itemClaim(claims, req.environmentId, req.providerConfigKey, item, id, req.now)
      : null;
  if (claims && !claim) {
    const first = await recordedAlready(ctx, req.environmentId, req.providerConfigKey, item);
    if (first) return duplicate(ctx, req, item, first);
  }
  const job = eventJob(id, req, item, channelChecked, claim !== null);
  const owner = claim && claims ? await enqueueClaimed(ctx, job, claims, claim, id) : id;
  if (!claim) await ctx.bus.enqueue(queues.webhookInbound, job.data, { decoded: job.decoded });
  if (owner !== id) return duplicate(ctx, req, item, owner);
  return recorded(ctx, req, item, id);
}

/**
 * The job: the notification as receipt learned it, `claimed` when its claim rides on the job, its bytes
 * and the event they encode (a worker of this process taking it straight from the enqueue decodes
 * nothing). No msgId: the id is new, so the bus's msgId de-duplication could never apply (and it costs
 * a write per notification); an upstream's resend is a new receipt, de-duplicated by its key.
 */
function eventJob(
  id: string,
  req: ReceivedRequest,
  item: NotificationItem,
  channelChecked: ItemCheck,
  claimed: boolean,
): InboundJob {
  const event = notificationEvent(id, req, item, channelChecked, item.dedupeKey ?? "");
  event.claimed = claimed;
  return { data: toBinary(NotificationReceivedSchema, event), decoded: event };
}

/** A notification recorded under `id`: counted, its pending work added, answered with its id. */
function recorded(ctx: WebhookServiceContext, req: ReceivedRequest, item: NotificationItem, id: string): ReceiveResult {
  const { environmentId, providerConfigKey } = req;
  ctx.counts.notifications.inc(providerConfigKey, "received");
  ctx.limits.pending.received(environmentId, providerConfigKey, 1, req.now);
  ctx.logger.debug("notification recorded", {
    providerConfigKey,
    channelId: item.channelId,
    messageNumber: item.messageNumber,
    notificationId: id,
    bodyLength: req.body.byteLength,
  });
  return { notificationId: id };
}

/** A notification recorded before (`owner` its id): counted, logged, answered `duplicate: true`. */
function duplicate(
  ctx: WebhookServiceContext,
  { providerConfigKey }: ReceivedRequest,
  { channelId, messageNumber }: NotificationItem,
  owner: string,
): ReceiveResult {
  ctx.counts.notifications.inc(providerConfigKey, "duplicate");
  ctx.logger
    .child({ providerConfigKey, channelId, messageNumber })
    .info("duplicate notification not recorded again", { notificationId: owner });
  return { notificationId: owner, duplicate: true };
}

/** A notification the channel check refused: a token mismatch counted and logged, an unknown channel not. */
function dropped(
  ctx: WebhookServiceContext,
  { providerConfigKey }: ReceivedRequest,
  { channelId, messageNumber }: NotificationItem,
  why: "mismatch" | "unknown",
): ReceiveResult {
  if (why === "mismatch") {
    ctx.counts.notifications.inc(providerConfigKey, "dropped");
    ctx.logger
      .child({ providerConfigKey, channelId, messageNumber })
      .warn("notification dropped: its channel token does not match the channel's");
    return { dropped: true, dropReason: DropReason.TOKEN_MISMATCH };
  }
  // Debug only: a flood of made-up channel ids must not flood the log.
  ctx.logger.debug("notification dropped: strict integration, channel unknown to the registry", {
    providerConfigKey,
    channelId,
  });
  return { dropped: true, dropReason: DropReason.UNKNOWN_CHANNEL };
}

/**
 * Whether a notification with the item's key was recorded before: its id, or null. Not the
 * de-duplication decision (the worker's claim): a read, for receipt's answer only.
 */
function recordedAlready(
  ctx: WebhookServiceContext,
  environmentId: string,
  providerConfigKey: string,
  item: NotificationItem,
): Promise<string | null> | null {
  const { channelId, messageNumber } = item;
  if (item.dedupeKey) return ctx.store.findDedupeKey(environmentId, providerConfigKey, item.dedupeKey);
  if (channelId === undefined || messageNumber === null) return null;
  return ctx.store.findNotificationKey(environmentId, channelId, messageNumber);
}
