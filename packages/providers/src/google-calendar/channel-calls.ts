import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import type { ChannelCallFacts, ChannelCreation, UpstreamCall } from "../adapter.ts";
import { millis, parseObject, text } from "../google/json-fields.ts";

const WATCH_PATH = /\/calendars\/[^/]+\/events\/watch$/;
const STOP_PATH = /\/channels\/stop$/;

/**
 * Whether a proxied call creates or stops a notification channel (spec: Upstream calendar API calls:
 * POST .../calendars/{id}/events/watch and POST .../channels/stop).
 */
export function channelCallOf(method: string, path: string): ChannelCall | undefined {
  if (method !== "POST") return undefined;
  if (WATCH_PATH.test(path)) return ChannelCall.WATCH;
  if (STOP_PATH.test(path)) return ChannelCall.STOP;
  return undefined;
}

/**
 * Reads the channel from a watch or stop call (spec: Upstream calendar API calls): a watch sends
 * `{id, type, address, token?, expiration?}` and gets back `{id, resourceId, resourceUri, expiration}`;
 * a stop sends `{id, resourceId}`. Returns null when the bodies name no channel.
 */
export function readChannelCall(
  call: ChannelCall,
  requestBody: Uint8Array,
  responseBody: Uint8Array,
): ChannelCallFacts | null {
  const sent = parseObject(requestBody);
  const got = call === ChannelCall.WATCH ? parseObject(responseBody) : {};
  const channelId = text(got.id) || text(sent.id);
  if (!channelId) return null;
  return {
    channelId,
    resourceId: text(got.resourceId) || text(sent.resourceId),
    resourceUri: text(got.resourceUri),
    expirationMs: millis(got.expiration) || millis(sent.expiration),
    token: text(sent.token) || text(got.token),
  };
}

/** https://developers.google.com/workspace/calendar/api/guides/push: events channels live at most one week. */
export const CHANNEL_MAX_LIFETIME_MS = 7 * 24 * 3600 * 1000;

/**
 * Managed channels: the watch Junction makes itself, a web_hook channel on the primary calendar's
 * events with Junction's id and token, asking for the longest life the upstream allows. The calendar
 * is named by its id, the account's email (as the script template does), so that the resource URI
 * of every notification carries it and matches by rule 2; "primary" only when the email is unknown.
 */
export function createCalendarChannel(input: ChannelCreation): UpstreamCall {
  const calendarId = encodeURIComponent(input.accountEmail || "primary");
  return {
    method: "POST",
    path: `/calendar/v3/calendars/${calendarId}/events/watch`,
    body: JSON.stringify({
      id: input.channelId,
      type: "web_hook",
      address: input.webhookUrl,
      token: input.token,
      params: { ttl: String(CHANNEL_MAX_LIFETIME_MS / 1000) },
    }),
  };
}

/** Managed channels: the watch's answer `{id, resourceId, resourceUri, expiration}`; null without a resource id. */
export function readCreatedCalendarChannel(input: ChannelCreation, responseBody: Uint8Array): ChannelCallFacts | null {
  const got = parseObject(responseBody);
  const resourceId = text(got.resourceId);
  if (!resourceId) return null;
  return {
    channelId: text(got.id) || input.channelId,
    resourceId,
    resourceUri: text(got.resourceUri),
    expirationMs: millis(got.expiration),
    token: input.token,
  };
}
