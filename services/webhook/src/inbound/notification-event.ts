import { createHash } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import {
  type NotificationReceived,
  NotificationLifecycle,
  NotificationMatch,
  NotificationReceivedSchema,
} from "@junction/contracts/events/v1/events_pb";
import type { NotificationItem, NotificationReading } from "@junction/providers";
import { errors } from "../errors.ts";

/** A handshake answer's body may hold at most this (a validation token is short; a huge one is refused). */
export const MAX_HANDSHAKE_BODY_BYTES = 64 * 1024;

/** What receipt records of one inbound request, whatever its items. */
export interface ReceivedRequest {
  environmentId: string;
  providerConfigKey: string;
  /** Headers as received, credentials removed. */
  headers: Record<string, string>;
  body: Uint8Array;
  contentType: string;
  query: string;
  now: number;
  /** Its integration refuses notifications for channels unknown to the registry (`strict_channels`). */
  strict: boolean;
}

/** What receipt's channel check learned of an item it records (see receive-notification.ts). */
export interface ItemCheck {
  /** The registry answered (false: the worker checks the token before forwarding). */
  checked: boolean;
  /** The connection that created the item's channel, of this integration; "" when none or unknown. */
  connectionId: string;
}

/** What an adapter's reading asks receipt to do: answer a handshake, or record its items. */
export type CheckedReading =
  | { kind: "handshake"; status: number; contentType: string; body: Uint8Array }
  | { kind: "notifications"; items: NotificationItem[]; acceptStatus: number };

/**
 * An adapter's reading, checked: its refusal is thrown as the error to answer; a handshake must be a
 * 2xx–4xx answer of at most MAX_HANDSHAKE_BODY_BYTES; a reading must carry at least one and at most
 * `maxItems` notifications (the adapter's limit), and its accept status is a 2xx (200 when unsaid).
 */
export function checkedReading(reading: NotificationReading, maxItems: number): CheckedReading {
  if (reading.kind === "refused") throw errors.notificationRefused(reading.status, reading.code, reading.message);
  if (reading.kind === "handshake") {
    if (reading.body.byteLength > MAX_HANDSHAKE_BODY_BYTES) {
      throw errors.invalidNotificationBody(`asks for a handshake answer above ${MAX_HANDSHAKE_BODY_BYTES} bytes`);
    }
    if (!Number.isInteger(reading.status) || reading.status < 200 || reading.status > 499) {
      throw errors.invalidNotificationBody("asks for a handshake answer with a status outside 200–499");
    }
    return reading;
  }
  const count = reading.items.length;
  if (count === 0) throw errors.invalidNotificationBody("carries no notification");
  if (count > maxItems) {
    throw errors.invalidNotificationBody(
      maxItems === 1
        ? `carries ${count} notifications; exactly one is accepted`
        : `carries ${count} notifications; at most ${maxItems} are accepted in one request`,
    );
  }
  const status = reading.acceptStatus ?? 200;
  return { kind: "notifications", items: reading.items, acceptStatus: status >= 200 && status < 300 ? status : 200 };
}

const MATCH = {
  resource: NotificationMatch.UNSPECIFIED,
  email: NotificationMatch.EMAIL,
  channel: NotificationMatch.CHANNEL,
};
const LIFECYCLE = {
  reauthorizationRequired: NotificationLifecycle.REAUTHORIZATION_REQUIRED,
  subscriptionRemoved: NotificationLifecycle.SUBSCRIPTION_REMOVED,
  missed: NotificationLifecycle.MISSED,
};

/**
 * The NotificationReceived recorded for one item: the request's headers, body, content type and
 * query, and what the adapter read of the item (so that the worker reads nothing again).
 */
export function notificationEvent(
  id: string,
  req: ReceivedRequest,
  item: NotificationItem,
  check: ItemCheck,
  dedupeKey: string,
): NotificationReceived {
  return create(NotificationReceivedSchema, {
    ...requestFields(req),
    ...itemFields(id, item, check, dedupeKey),
  });
}

/** One item of a batch, as batchEvent records it: what receipt read of it, none of the request's fields. */
export function batchItem(
  id: string,
  item: NotificationItem,
  check: ItemCheck,
  dedupeKey: string,
): NotificationReceived {
  return create(NotificationReceivedSchema, itemFields(id, item, check, dedupeKey));
}

/**
 * A batch provider's request recorded once, its items inside (at least one): the request's headers,
 * content type and query once for all. The body is left out when the adapter gave the items payloads
 * (they are the body, item by item); kept once otherwise. So what is written is bounded by the
 * request's size and a small cost per item, never the body once per item.
 */
export function batchEvent(req: ReceivedRequest, items: NotificationReceived[]): NotificationReceived {
  const paid = items.some((item) => item.payload !== undefined);
  return create(NotificationReceivedSchema, {
    ...requestFields(req),
    id: items[0]?.id ?? "",
    body: paid ? new Uint8Array(0) : req.body,
    headersRead: true,
    items,
  });
}

/** A batch's items as the worker processes them: each a whole notification, the request's fields its batch's. */
export function notificationsOf(event: NotificationReceived): NotificationReceived[] {
  if (event.items.length === 0) return [event];
  return event.items.map((item) =>
    Object.assign(item, {
      environmentId: event.environmentId,
      providerConfigKey: event.providerConfigKey,
      headers: event.headers,
      receivedAtMs: event.receivedAtMs,
      body: event.body,
      contentType: event.contentType,
      query: event.query,
      strictChannels: event.strictChannels,
    }),
  );
}

function requestFields(req: ReceivedRequest) {
  return {
    environmentId: req.environmentId,
    providerConfigKey: req.providerConfigKey,
    headers: req.headers,
    receivedAtMs: BigInt(req.now),
    body: req.body,
    contentType: req.contentType,
    query: req.query,
    strictChannels: req.strict,
  };
}

function itemFields(id: string, item: NotificationItem, check: ItemCheck, dedupeKey: string) {
  const channelChecked = check.checked;
  return {
    id,
    channelChecked,
    connectionId: check.connectionId,
    headersRead: true,
    channelId: item.channelId ?? "",
    messageNumber: item.messageNumber === null ? undefined : BigInt(item.messageNumber),
    resourceUri: item.resourceUri,
    // Kept only for the worker's check: a checked token is not recorded twice.
    channelToken: channelChecked ? "" : item.token,
    dedupeKey,
    match: item.match ? MATCH[item.match.by] : NotificationMatch.UNSPECIFIED,
    matchEmail: item.match?.by === "email" ? item.match.email : "",
    payload: item.payload === undefined ? undefined : new TextEncoder().encode(JSON.stringify(item.payload)),
    lifecycle: item.lifecycle ? LIFECYCLE[item.lifecycle] : NotificationLifecycle.UNSPECIFIED,
  };
}

/**
 * What de-duplicates a batch's item the adapter gave no key to and that carries no channel id and
 * message number: the request's body and the item's place in it, so that the upstream's retry of a
 * request whose answer was lost (or a 5xx) forwards nothing twice.
 */
export function batchItemKey(bodyDigest: string, index: number): string {
  return `batch:${bodyDigest}:${index}`;
}

/** The body's digest, for batchItemKey. */
export function bodyDigest(body: Uint8Array): string {
  return createHash("sha256").update(body).digest("base64url");
}
