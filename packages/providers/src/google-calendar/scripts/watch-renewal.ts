import { createSync, type Nango } from "nango";

// spec: Customer-side scripts, the renewal sync (frequency 1d): read the stored ids, create a new
// channel, and only when that returned 200 and old ids exist, stop the old channel; a failure to
// stop is logged at error level and does not abort; the new ids are stored. Channels are never
// renewed by the upstream itself (spec: Limits, "Channel renewal").
//
// The new ids are stored before the old channel is stopped (the spec lists storing last): that way a
// failure at any step leaves the metadata naming a channel that is still live.
//
// The channel-creation helpers below repeat post-connection-creation.ts on purpose: a deployed script
// is one file and may import only "nango", so templates cannot share a module.

/** spec: Limits, "Channel expiration unit: Unix time in milliseconds; scripts use 7 days". */
const CHANNEL_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

interface NewChannel {
  status: number;
  id: string;
  resourceId: string;
  resourceUri: string;
}

/** Watches the primary calendar's events; throws when the upstream refuses (status ≥ 400). */
async function createChannel(nango: Nango): Promise<NewChannel> {
  const primary = await nango.get<{ id?: unknown }>({ endpoint: "/calendar/v3/users/me/calendarList/primary" });
  const calendarId = primary.data?.id;
  if (typeof calendarId !== "string" || calendarId === "") throw new Error("the primary calendar has no id");
  const address = await nango.getWebhookURL();
  if (!address) throw new Error("the integration has no webhook URL");
  // A UUID: 36 characters, within the 64 allowed (spec: Limits), unique per channel.
  const id = nango.uuid();
  const res = await nango.post<{ resourceId?: unknown; resourceUri?: unknown }>({
    endpoint: `/calendar/v3/calendars/${encodeURIComponent(calendarId)}/events/watch`,
    data: { id, type: "webhook", address, expiration: Date.now() + CHANNEL_LIFETIME_MS },
  });
  const resourceId = typeof res.data?.resourceId === "string" ? res.data.resourceId : "";
  const resourceUri = typeof res.data?.resourceUri === "string" ? res.data.resourceUri : "";
  return { status: res.status, id, resourceId, resourceUri };
}

/** The metadata naming the channel, its resourceUri added to calendarWatchResourceUris (matching rule 1). */
function channelMetadata(channel: NewChannel, metadata: Record<string, unknown>): Record<string, string | string[]> {
  const listed = Array.isArray(metadata.calendarWatchResourceUris)
    ? metadata.calendarWatchResourceUris.filter((u): u is string => typeof u === "string")
    : [];
  const uris = channel.resourceUri && !listed.includes(channel.resourceUri) ? [...listed, channel.resourceUri] : listed;
  return {
    calendarChannelId: channel.id,
    calendarResourceId: channel.resourceId,
    ...(uris.length > 0 ? { calendarWatchResourceUris: uris } : {}),
  };
}

async function stopChannel(nango: Nango, id: string, resourceId: string): Promise<boolean> {
  try {
    await nango.post({ endpoint: "/calendar/v3/channels/stop", data: { id, resourceId } });
    nango.log(`stopped calendar channel ${id}`);
    return true;
  } catch (err) {
    // spec: Errors 2: a failure to stop a channel during renewal is logged at error level and aborts nothing.
    const status = (err as { status?: unknown }).status;
    nango.log(`could not stop calendar channel ${id} (status ${status ?? "none"}): ${(err as Error).message}`, {
      level: "error",
    });
    return false;
  }
}

export default createSync({
  description: "Renews the calendar notification channel every day: a new channel, then the old one stopped",
  version: "1.0.0",
  frequency: "1d",
  autoStart: true,
  // An identifier of the renewal script, not a service endpoint (spec: Customer-side scripts).
  endpoint: "GET /google-calendar/watch-renewal",
  exec: async (nango) => {
    const before = await nango.getMetadata();
    const oldId = typeof before.calendarChannelId === "string" ? before.calendarChannelId : "";
    const oldResourceId = typeof before.calendarResourceId === "string" ? before.calendarResourceId : "";

    // A refused watch throws here: the old channel stays, and so do the stored ids.
    const channel = await createChannel(nango);
    if (channel.status !== 200 || !channel.resourceId) {
      throw new Error(`the watch call answered ${channel.status} without a resourceId; the old channel is kept`);
    }
    try {
      await nango.updateMetadata(channelMetadata(channel, before));
    } catch (err) {
      // Unrecorded, the new channel could never be stopped by the other scripts: stop it, keep the old one.
      await stopChannel(nango, channel.id, channel.resourceId);
      throw err;
    }
    nango.log(`renewed calendar channel: ${oldId || "(none)"} → ${channel.id}`);

    let oldStopped = false;
    if (oldId && oldResourceId) {
      oldStopped = await stopChannel(nango, oldId, oldResourceId);
    } else if (oldId || oldResourceId) {
      nango.log("the stored channel ids are incomplete: the old channel cannot be stopped", { level: "warn" });
    }
    return { calendarChannelId: channel.id, calendarResourceId: channel.resourceId, oldChannelId: oldId, oldStopped };
  },
});
