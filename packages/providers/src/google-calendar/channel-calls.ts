import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import type { ChannelCallFacts } from "../adapter.ts";
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
