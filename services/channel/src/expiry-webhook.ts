import { create, toBinary } from "@bufbuild/protobuf";
import { type Bus, queues } from "@junction/bus";
import { DeliveryRequestedSchema } from "@junction/contracts/events/v1/events_pb";
import { newId } from "@junction/platform";
import type { ChannelRecord } from "./store/records.ts";

/** The delivery type of every webhook about a channel (docs/channels.md, "Managed channels"). */
export const CHANNEL_WEBHOOK_TYPE = "channel";

/** A channel as Junction's channel webhooks describe it (never its token). */
export function channelSummary(channel: ChannelRecord): Record<string, unknown> {
  return {
    id: channel.id,
    resourceId: channel.resourceId,
    resourceUri: channel.resourceUri,
    expiration: channel.expiration === null ? null : new Date(channel.expiration).toISOString(),
    expirationMs: channel.expiration,
  };
}

/**
 * The webhook warning the customer that a channel expires soon with no successor: type "channel",
 * operation "expiring", in the shape of Junction's other webhooks (`from`, `type`, `operation`,
 * `providerConfigKey`, `connectionId`).
 */
export function expiryWarningBody(channel: ChannelRecord, now: number): Record<string, unknown> {
  const expiration = channel.expiration ?? now;
  return {
    from: "junction",
    type: CHANNEL_WEBHOOK_TYPE,
    operation: "expiring",
    providerConfigKey: channel.providerConfigKey,
    connectionId: channel.connectionId,
    channel: { ...channelSummary(channel), expiration: new Date(expiration).toISOString(), expirationMs: expiration },
    expiresInMs: Math.max(0, expiration - now),
  };
}

/** Enqueues the warning on the durable delivery queue; the webhook service signs and delivers it. */
export async function enqueueExpiryWarning(bus: Bus, channel: ChannelRecord, now: number): Promise<string> {
  return enqueueChannelWebhook(bus, channel, expiryWarningBody(channel, now), now);
}

/**
 * Enqueues a channel webhook (type "channel") for a connection on the durable delivery queue, where
 * the delivery log records it. Returns its message id.
 */
export async function enqueueChannelWebhook(
  bus: Bus,
  to: { environmentId: string; providerConfigKey: string; connectionId: string },
  body: Record<string, unknown>,
  now: number,
): Promise<string> {
  const messageId = newId("msg", now);
  const job = create(DeliveryRequestedSchema, {
    messageId,
    environmentId: to.environmentId,
    type: CHANNEL_WEBHOOK_TYPE,
    body: new TextEncoder().encode(JSON.stringify(body)),
    providerConfigKey: to.providerConfigKey,
    connectionId: to.connectionId,
    atMs: BigInt(now),
  });
  await bus.enqueue(queues.webhookDelivery, toBinary(DeliveryRequestedSchema, job), { msgId: messageId });
  return messageId;
}
