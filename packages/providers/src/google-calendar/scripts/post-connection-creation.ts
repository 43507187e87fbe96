import { createOnEvent, type Nango } from "nango";

// spec: Customer-side scripts, post-connection-creation: read the primary calendar, create a channel
// (new unique id, address = the integration's webhook URL, expiration now + 7 days), then store
// calendarChannelId and calendarResourceId. Scripts cannot import each other: the channel helpers are
// repeated in watch-renewal.ts on purpose.

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

/**
 * The metadata naming the channel. The watch response's resourceUri is the exact value the upstream
 * sends in x-provider-resource-uri, so it is added to calendarWatchResourceUris (spec: matching,
 * rule 1), keeping the URIs already listed.
 */
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
    // spec: Errors 2: a failure to stop a channel is logged at error level and aborts nothing.
    const status = (err as { status?: unknown }).status;
    nango.log(`could not stop calendar channel ${id} (status ${status ?? "none"}): ${(err as Error).message}`, {
      level: "error",
    });
    return false;
  }
}

export default createOnEvent({
  event: "post-connection-creation",
  description: "Creates the calendar notification channel and stores its ids in the connection's metadata",
  version: "1.0.0",
  exec: async (nango) => {
    const before = await nango.getMetadata();
    const channel = await createChannel(nango);
    if (channel.status !== 200 || !channel.resourceId) {
      throw new Error(`the watch call answered ${channel.status} without a resourceId`);
    }
    try {
      await nango.updateMetadata(channelMetadata(channel, before));
    } catch (err) {
      // Unrecorded, the channel could never be stopped by the other scripts: stop it now.
      await stopChannel(nango, channel.id, channel.resourceId);
      throw err;
    }
    nango.log(`created calendar channel ${channel.id} on ${channel.resourceUri || "the primary calendar"}`);
    // Run again on a connection that already had a channel, the old one must not keep sending.
    const oldId = typeof before.calendarChannelId === "string" ? before.calendarChannelId : "";
    const oldResourceId = typeof before.calendarResourceId === "string" ? before.calendarResourceId : "";
    if (oldId && oldResourceId && oldId !== channel.id) await stopChannel(nango, oldId, oldResourceId);
    return { calendarChannelId: channel.id, calendarResourceId: channel.resourceId };
  },
});
