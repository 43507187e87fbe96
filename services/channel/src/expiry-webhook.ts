import { create, toBinary } from "@bufbuild/protobuf";
import { type Bus, queues } from "@junction/bus";
import { DeliveryRequestedSchema } from "@junction/contracts/events/v1/events_pb";
import { newId } from "@junction/platform";
import type { ChannelRecord } from "./store/records.ts";

/**
 * The webhook warning the customer that a channel expires soon with no successor: type "channel",
 * operation "expiring", in the shape of Junction's other webhooks (`from`, `type`, `operation`,
 * `providerConfigKey`, `connectionId`).
 */
export function expiryWarningBody(channel: ChannelRecord, now: number): Record<string, unknown> {
  const expiration = channel.expiration ?? now;
  return {
    from: "junction",
    type: "channel",
    operation: "expiring",
    providerConfigKey: channel.providerConfigKey,
    connectionId: channel.connectionId,
    channel: {
      id: channel.id,
      resourceId: channel.resourceId,
      resourceUri: channel.resourceUri,
      expiration: new Date(expiration).toISOString(),
      expirationMs: expiration,
    },
    expiresInMs: Math.max(0, expiration - now),
  };
}

/** Enqueues the warning on the durable delivery queue; the webhook service signs and delivers it. */
export async function enqueueExpiryWarning(bus: Bus, channel: ChannelRecord, now: number): Promise<string> {
  const messageId = newId("msg", now);
  const job = create(DeliveryRequestedSchema, {
    messageId,
    environmentId: channel.environmentId,
    type: "channel",
    body: new TextEncoder().encode(JSON.stringify(expiryWarningBody(channel, now))),
    providerConfigKey: channel.providerConfigKey,
    connectionId: channel.connectionId,
    atMs: BigInt(now),
  });
  await bus.enqueue(queues.webhookDelivery, toBinary(DeliveryRequestedSchema, job), { msgId: messageId });
  return messageId;
}
