import type { ChannelRecord } from "./channel-registry.ts";
import type { NotificationHeaderStyle } from "./options.ts";

/** What Google sends as User-Agent on push notifications. */
const GOOGLE_PUSH_USER_AGENT = "APIs-Google; (+https://developers.google.com/webmasters/APIs-Google.html)";

/**
 * Headers of one push notification. "goog" is what Google really sends; "provider" uses the spec's
 * names (spec: Inbound webhook endpoint, notification headers) and only those five.
 */
export function notificationHeaders(
  channel: ChannelRecord,
  resourceState: string,
  messageNumber: number,
  style: NotificationHeaderStyle,
): Record<string, string> {
  if (style === "provider") {
    return {
      "x-provider-channel-id": channel.id,
      "x-provider-resource-id": channel.resourceId,
      "x-provider-resource-uri": channel.resourceUri,
      "x-provider-resource-state": resourceState,
      "x-provider-message-number": String(messageNumber),
    };
  }
  return {
    "User-Agent": GOOGLE_PUSH_USER_AGENT,
    "X-Goog-Channel-ID": channel.id,
    "X-Goog-Channel-Expiration": new Date(channel.expiration).toUTCString(),
    "X-Goog-Resource-State": resourceState,
    "X-Goog-Message-Number": String(messageNumber),
    "X-Goog-Resource-ID": channel.resourceId,
    "X-Goog-Resource-URI": channel.resourceUri,
    ...(channel.token !== undefined ? { "X-Goog-Channel-Token": channel.token } : {}),
  };
}
