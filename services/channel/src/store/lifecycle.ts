import type { ChannelRecord, ChannelState, ChannelWatch } from "./records.ts";

// The lifecycle rules every store applies the same way (spec: Notification channel lifecycle).

/**
 * The state a channel is in at `now`: an active channel whose expiration has passed reads as
 * expired even before `markExpired` has written it (spec: lifecycle, "Time reaches expiration").
 */
export function effectiveState(channel: ChannelRecord, now: number): ChannelState {
  return channel.state === "active" && channel.expiration !== null && channel.expiration <= now
    ? "expired"
    : channel.state;
}

/** The channel as it reads at `now`. */
export function asOf(channel: ChannelRecord, now: number): ChannelRecord {
  const state = effectiveState(channel, now);
  return state === channel.state ? channel : { ...channel, state };
}

/**
 * The record a successful watch leaves behind, or null when the watch is a late replay (older than
 * the record's creation or its stop) and must change nothing.
 *
 * A watch on a channel that is still active is the same watch seen again: its fields are refreshed,
 * creation time and message number kept. A watch on a channel that had ended (stopped, or expired at
 * the watch's time) starts a new channel under the same id: it counts from creation again. The
 * resource id cannot tell the two apart, as every channel on one calendar shares it.
 */
export function applyWatch(existing: ChannelRecord | null, watch: ChannelWatch): ChannelRecord | null {
  const fields = {
    resourceId: watch.resourceId,
    providerConfigKey: watch.providerConfigKey,
    connectionId: watch.connectionId,
    resourceUri: watch.resourceUri,
    expiration: watch.expiration,
    token: watch.token,
    tokenDigest: watch.tokenDigest ?? null,
    state: "active" as const,
    stoppedAt: null,
  };
  if (!existing) {
    return {
      environmentId: watch.environmentId,
      id: watch.channelId,
      ...fields,
      createdAt: watch.at,
      updatedAt: watch.at,
      lastMessageNumber: 0,
      expiryWarnedAt: null,
    };
  }
  if (watch.at < existing.createdAt || (existing.stoppedAt !== null && watch.at < existing.stoppedAt)) return null;
  const restarted = effectiveState(existing, watch.at) !== "active";
  return {
    ...existing,
    ...fields,
    createdAt: restarted ? watch.at : existing.createdAt,
    updatedAt: Math.max(existing.updatedAt, watch.at),
    lastMessageNumber: restarted ? 0 : existing.lastMessageNumber,
    expiryWarnedAt: restarted || existing.expiration !== watch.expiration ? null : existing.expiryWarnedAt,
  };
}

/** Newest first; ties (same millisecond) by id, descending, so the order is total. */
export function newestFirst(a: ChannelRecord, b: ChannelRecord): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}
