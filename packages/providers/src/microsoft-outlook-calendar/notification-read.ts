import type { InboundNotification, NotificationItem, NotificationReading } from "../adapter.ts";

/** Graph's tokens are short opaque strings; a far longer one is not Graph's (huge tokens refused). */
export const MAX_VALIDATION_TOKEN_BYTES = 1024;
/**
 * Graph documents no batch size; a batch holds the changes of one delivery, a few items in practice.
 * 1000 items is far above what Graph sends; a larger batch is refused rather than recorded item by
 * item.
 */
export const MAX_BATCH_ITEMS = 1000;
/**
 * The largest batch body accepted. Items without resource data are about half a KiB, so 1000 fit. A
 * batch is recorded as one message on the inbound queue (its items' payloads, about the body's size,
 * and some 200 bytes per item), which must stay under NATS's default 1 MB.
 */
export const NOTIFICATION_BODY_LIMIT = 512 * 1024;

const LIFECYCLE = new Set(["reauthorizationRequired", "subscriptionRemoved", "missed"]);
const encoder = new TextEncoder();

const refused = (message: string): NotificationReading => ({
  kind: "refused",
  status: 400,
  code: "invalid_notification",
  message,
});

/**
 * Reads what Microsoft Graph posts to a notification URL
 * (https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks): the validation
 * request (`?validationToken=`, answered 200 text/plain with the decoded token, nothing recorded), or a
 * batch `{"value":[...]}` of change and lifecycle notifications
 * (https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events), answered 202 once
 * stored. Each item names its subscription (the registry's channel) and carries the subscription's
 * `clientState` (the channel token, checked at receipt and never forwarded). An item without a
 * subscription id is dropped (and said in `dropped`), not the batch: Graph would resend the whole batch
 * on a refusal.
 */
export function readGraphNotification(notification: InboundNotification): NotificationReading {
  const query = new URLSearchParams(notification.query);
  const validationToken = query.get("validationToken");
  if (validationToken !== null) {
    const token = encoder.encode(validationToken);
    if (token.byteLength === 0) return refused("has an empty validationToken.");
    if (token.byteLength > MAX_VALIDATION_TOKEN_BYTES) {
      return refused(`has a validationToken over ${MAX_VALIDATION_TOKEN_BYTES} bytes.`);
    }
    return { kind: "handshake", status: 200, contentType: "text/plain", body: token };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(notification.body));
  } catch {
    return refused('is not JSON: expected {"value":[...]}.');
  }
  const value = isObject(parsed) ? parsed.value : undefined;
  if (!Array.isArray(value)) return refused('has no "value" array: expected {"value":[...]}.');
  if (value.length > MAX_BATCH_ITEMS) return refused(`holds ${value.length} items; at most ${MAX_BATCH_ITEMS}.`);
  const items: NotificationItem[] = [];
  const dropped: string[] = [];
  value.forEach((raw, index) => {
    const item = isObject(raw) ? readItem(raw) : null;
    if (item) items.push(item);
    else dropped.push(`item ${index} ${isObject(raw) ? "has no subscriptionId" : "is not an object"}`);
  });
  return { kind: "notifications", items, acceptStatus: 202, ...(dropped.length > 0 ? { dropped } : {}) };
}

/** One change or lifecycle notification; null without a subscription id. */
function readItem(raw: Record<string, unknown>): NotificationItem | null {
  const subscriptionId = text(raw.subscriptionId);
  if (!subscriptionId) return null;
  const resourceData = isObject(raw.resourceData) ? raw.resourceData : {};
  const lifecycleEvent = text(raw.lifecycleEvent);
  const { clientState: _secret, ...payload } = raw;
  const item: NotificationItem = {
    channelId: subscriptionId,
    messageNumber: null,
    resourceUri: text(raw.resource),
    resourceId: text(resourceData.id),
    state: lifecycleEvent || text(raw.changeType),
    token: text(raw.clientState),
    dedupeKey: dedupeKeyOf([
      subscriptionId,
      text(raw.changeType),
      text(raw.resource),
      text(resourceData.id),
      text(resourceData["@odata.etag"]),
      lifecycleEvent,
      text(raw.subscriptionExpirationDateTime),
    ]),
    match: { by: "channel" },
    payload,
  };
  if (LIFECYCLE.has(lifecycleEvent)) item.lifecycle = lifecycleEvent as NonNullable<NotificationItem["lifecycle"]>;
  return item;
}

/**
 * A stable key of an item's identifying fields: Graph numbers nothing, and redelivers a batch it saw
 * no 2xx for. The fields are joined unambiguously (JSON) before hashing.
 */
function dedupeKeyOf(fields: string[]): string {
  return `graph:${Bun.SHA256.hash(JSON.stringify(fields), "hex")}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}
