import { ChannelCall } from "@junction/contracts/events/v1/events_pb";

/** What a watch or stop call says about its channel, read from the provider's JSON bodies. */
export interface ChannelCallFacts {
  channelId: string;
  resourceId: string;
  resourceUri: string;
  /** Unix ms; 0 when unknown. */
  expirationMs: number;
  token: string;
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

function parseObject(bytes: Uint8Array): Record<string, unknown> {
  if (bytes.byteLength === 0) return {};
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The upstream writes expiration as a string of Unix milliseconds; callers may send a number. */
function millis(value: unknown): number {
  const n = typeof value === "string" && /^\d{1,16}$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : 0;
}
