import type { Bus } from "@junction/bus";
import { CHANNEL_WEBHOOK_TYPE, channelSummary, enqueueChannelWebhook } from "../expiry-webhook.ts";
import type { ManagedSlotKey } from "../store/managed-records.ts";
import type { ChannelRecord } from "../store/records.ts";

/**
 * The operations of the channel webhooks this module sends (type "channel"; docs/channels.md, "Managed channels"):
 * created, renewed and failed for Junction's own work on a managed channel; removed and
 * reauthorization_required for what the upstream said about any channel. ("expiring" is the sweep's.)
 */
export type ChannelOperation = "created" | "renewed" | "failed" | "removed" | "reauthorization_required";

export interface ChannelEvent {
  operation: ChannelOperation;
  /** Whether Junction manages the channel (and so acts on it itself). */
  managed: boolean;
  /** Why Junction acted: "connection_created", "connection_reauthorized", "renewal", "removed", ... */
  reason: string;
  /** The channel the message is about (the new one for created and renewed); null when none exists. */
  channel: ChannelRecord | null;
  /** The channel a renewal replaced (stopped after the new one was created), when it did. */
  previousChannelId?: string;
  /** A failure: its stable code and message (never a token), the attempts so far and the next one's time. */
  error?: { code: string; message: string; attempts: number; nextAttemptAt: number | null };
}

/** The body of a channel webhook, in the shape of Junction's other webhooks. */
export function channelEventBody(to: ManagedSlotKey, event: ChannelEvent): Record<string, unknown> {
  const body: Record<string, unknown> = {
    from: "junction",
    type: CHANNEL_WEBHOOK_TYPE,
    operation: event.operation,
    providerConfigKey: to.providerConfigKey,
    connectionId: to.connectionId,
    managed: event.managed,
    reason: event.reason,
    channel: event.channel ? channelSummary(event.channel) : null,
  };
  if (event.previousChannelId) body.previousChannelId = event.previousChannelId;
  if (event.error) {
    const { nextAttemptAt, ...rest } = event.error;
    body.error = { ...rest, nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt).toISOString() };
  }
  return body;
}

/** Enqueues the webhook on the durable delivery queue (the delivery log records it); returns its message id. */
export function enqueueChannelEvent(bus: Bus, to: ManagedSlotKey, event: ChannelEvent, now: number): Promise<string> {
  return enqueueChannelWebhook(bus, to, channelEventBody(to, event), now);
}
