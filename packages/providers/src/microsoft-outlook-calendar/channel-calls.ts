import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import { parseObject, text } from "../json-fields.ts";
import type { ChannelCallFacts, ChannelCreation, ChannelRef, UpstreamCall } from "../adapter.ts";

/** https://learn.microsoft.com/en-us/graph/api/resources/subscription: Outlook event subscriptions (without resource data) live at most 10,080 minutes. */
export const SUBSCRIPTION_MAX_LIFETIME_MS = 10_080 * 60 * 1000;
/** Asked-for lifetimes stay this far under the maximum, so clock skew never makes Graph refuse one. */
const LIFETIME_SLACK_MS = 5 * 60 * 1000;
/** What a managed subscription watches: the signed-in user's calendar events, every change. */
const RESOURCE = "/me/events";
const CHANGE_TYPES = "created,updated,deleted";

const COLLECTION = /^\/(?:v1\.0|beta)\/subscriptions\/?$/;
const ONE = /^\/(?:v1\.0|beta)\/subscriptions\/([^/?#]+)\/?$/;

/**
 * Whether a proxied call creates, renews or deletes a Graph subscription
 * (https://learn.microsoft.com/en-us/graph/api/subscription-post-subscriptions, subscription-update,
 * subscription-delete): POST /v1.0/subscriptions, PATCH and DELETE /v1.0/subscriptions/{id}; /beta too.
 */
export function subscriptionCallOf(method: string, path: string): ChannelCall | undefined {
  const bare = path.split("?")[0] ?? "";
  if (method === "POST" && COLLECTION.test(bare)) return ChannelCall.WATCH;
  if (method === "PATCH" && ONE.test(bare)) return ChannelCall.RENEW;
  if (method === "DELETE" && ONE.test(bare)) return ChannelCall.STOP;
  return undefined;
}

/**
 * The subscription a recognised call names: a creation's from Graph's answer `{id, resource,
 * expirationDateTime}` (the id is Graph's) and its request's `clientState`; a renewal's and a
 * deletion's id from the path, a renewal's new expiry from the answer or the request. Null when
 * neither names an id.
 */
export function readSubscriptionCall(
  call: ChannelCall,
  requestBody: Uint8Array,
  responseBody: Uint8Array,
  context: { path: string },
): ChannelCallFacts | null {
  const sent = parseObject(requestBody);
  const got = call === ChannelCall.STOP ? {} : parseObject(responseBody);
  const fromPath = decodeSegment(ONE.exec(context.path.split("?")[0] ?? "")?.[1]);
  const id = call === ChannelCall.WATCH ? text(got.id) : fromPath;
  if (!id) return null;
  return {
    channelId: id,
    resourceId: "",
    resourceUri: text(got.resource) || text(sent.resource),
    expirationMs: millis(got.expirationDateTime) || millis(sent.expirationDateTime),
    token: text(sent.clientState) || text(got.clientState),
  };
}

/** DELETE /v1.0/subscriptions/{id}. */
export function deleteSubscription(channel: ChannelRef): UpstreamCall {
  return { method: "DELETE", path: `/v1.0/subscriptions/${encodeURIComponent(channel.id)}` };
}

/** The expiry a new or renewed subscription asks for: as long as Graph allows, less the slack. */
function expiryOf(now: number): string {
  return new Date(now + SUBSCRIPTION_MAX_LIFETIME_MS - LIFETIME_SLACK_MS).toISOString();
}

/** Managed channels: POST /v1.0/subscriptions on the user's events, notifications and lifecycle to the webhook URL. */
export function createSubscription(input: ChannelCreation): UpstreamCall {
  return {
    method: "POST",
    path: "/v1.0/subscriptions",
    body: JSON.stringify({
      changeType: CHANGE_TYPES,
      notificationUrl: input.webhookUrl,
      lifecycleNotificationUrl: input.webhookUrl,
      resource: RESOURCE,
      expirationDateTime: expiryOf(input.now),
      clientState: input.token,
    }),
  };
}

/**
 * Managed channels: Graph's answer to a creation or renewal; the channel id is Graph's subscription id.
 * A renewal never changes `clientState`: the token is the answer's when Graph echoes it, else the
 * input's (for a renewal, the caller passes the channel's own token).
 */
export function readCreatedSubscription(input: ChannelCreation, responseBody: Uint8Array): ChannelCallFacts | null {
  const got = parseObject(responseBody);
  const id = text(got.id);
  if (!id) return null;
  return {
    channelId: id,
    resourceId: "",
    resourceUri: text(got.resource) || RESOURCE,
    expirationMs: millis(got.expirationDateTime),
    token: text(got.clientState) || input.token,
  };
}

/** Managed channels: PATCH /v1.0/subscriptions/{id} with a new expirationDateTime (renewed in place). */
export function renewSubscription(channel: ChannelRef, input: ChannelCreation): UpstreamCall {
  return {
    method: "PATCH",
    path: `/v1.0/subscriptions/${encodeURIComponent(channel.id)}`,
    body: JSON.stringify({ expirationDateTime: expiryOf(input.now) }),
  };
}

function decodeSegment(segment: string | undefined): string {
  if (!segment) return "";
  try {
    return decodeURIComponent(segment);
  } catch {
    return "";
  }
}

/** Graph writes expirationDateTime as an ISO 8601 date-time; 0 when absent or not one. */
function millis(value: unknown): number {
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}
