import type { InboundNotification, NotificationReading, ReadContext } from "../adapter.ts";
import { text } from "../google/json-fields.ts";
import { pushTokenChecker } from "./push-token.ts";
import { DEFAULT_JWKS_URL, SETTING } from "./settings.ts";

/**
 * Reads Gmail's push notifications, delivered by a Pub/Sub push subscription
 * (https://developers.google.com/workspace/gmail/api/guides/push): one message per request,
 * `{"message": {"data", "messageId", "publishTime", "attributes"}, "subscription"}`, its `data` the
 * base64 of `{"emailAddress", "historyId"}`. When the integration names an expected audience or
 * service account, the request's OIDC bearer token is checked first
 * (https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions).
 */
export function pubsubPushReader(): (
  notification: InboundNotification,
  context: ReadContext,
) => Promise<NotificationReading> {
  const checkToken = pushTokenChecker();
  return async (notification, context) => {
    const audience = context.settings[SETTING.audience] ?? "";
    const serviceAccountEmail = context.settings[SETTING.serviceAccountEmail] ?? "";
    if (audience || serviceAccountEmail) {
      const token = bearerToken(notification.headers.authorization);
      if (!token) {
        return refused(
          401,
          "pubsub_token_missing",
          "The push request carries no Authorization: Bearer token; the integration requires one.",
        );
      }
      const check = await checkToken(token, {
        audience,
        serviceAccountEmail,
        jwksUrl: context.settings[SETTING.jwksUrl] || DEFAULT_JWKS_URL,
        now: context.now,
        fetch: context.fetch,
      });
      if (!check.ok) return refused(check.status, check.code, check.message);
    }
    return readPushBody(notification.body);
  };
}

/** The Pub/Sub envelope and its Gmail data, as one notification item; a refusal when malformed. */
export function readPushBody(body: Uint8Array): NotificationReading {
  const envelope = parseObject(new TextDecoder().decode(body));
  if (!envelope) return refused(400, "pubsub_body_invalid", "The push request's body is not a JSON object.");
  const message = envelope.message;
  if (!isObject(message)) return refused(400, "pubsub_message_missing", 'The push request has no "message" object.');
  // Pub/Sub sends both spellings of the message's id and time.
  const messageId = text(message.messageId) || text(message.message_id);
  if (!messageId) return refused(400, "pubsub_message_id_missing", 'The push message has no "messageId".');
  const data = decodeData(message.data);
  if (!data) {
    return refused(400, "pubsub_data_invalid", 'The push message\'s "data" is not base64-encoded JSON object.');
  }
  const emailAddress = text(data.emailAddress);
  if (!emailAddress) return refused(400, "pubsub_email_missing", 'The push message\'s data has no "emailAddress".');
  const historyId =
    typeof data.historyId === "number" && Number.isSafeInteger(data.historyId)
      ? String(data.historyId)
      : text(data.historyId);
  if (!historyId) return refused(400, "pubsub_data_invalid", 'The push message\'s data has no "historyId".');
  const publishTime = text(message.publishTime) || text(message.publish_time);
  const payload: Record<string, unknown> = {
    emailAddress,
    historyId,
    messageId,
    publishTime,
    subscription: text(envelope.subscription),
  };
  if (isObject(message.attributes) && Object.keys(message.attributes).length > 0)
    payload.attributes = message.attributes;
  return {
    kind: "notifications",
    // Pub/Sub acknowledges a push answered 102, 200, 201, 202 or 204.
    acceptStatus: 200,
    items: [
      {
        channelId: undefined,
        messageNumber: null,
        resourceUri: "",
        resourceId: "",
        state: "",
        token: "",
        // Pub/Sub delivers at least once: a redelivery carries the same messageId.
        dedupeKey: messageId,
        match: { by: "email", email: emailAddress },
        payload,
      },
    ],
  };
}

function bearerToken(header: string | undefined): string {
  const match = /^Bearer +(\S+)\s*$/i.exec(header ?? "");
  return match?.[1] ?? "";
}

function decodeData(value: unknown): Record<string, unknown> | null {
  if (typeof value !== "string" || value === "" || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return null;
  return parseObject(Buffer.from(value, "base64").toString("utf8"));
}

function parseObject(source: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(source);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function refused(status: number, code: string, message: string): NotificationReading {
  return { kind: "refused", status, code, message };
}
