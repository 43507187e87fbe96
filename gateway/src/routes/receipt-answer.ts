import { DropReason, type ReceiveNotificationResponse } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { errorResponse } from "../http/error-response.ts";
import { json } from "../http/json.ts";

/**
 * The upstream's answer to a notification the webhook service took: the provider's handshake as its
 * adapter said, a throttled one's 503, a dropped one's 4xx, else the provider's accept status (200 by
 * default) with the recorded ids.
 */
export function receiptAnswer(res: ReceiveNotificationResponse): Response {
  if (res.handshake) {
    // The provider's handshake (a subscription validation), answered exactly as its adapter said.
    const { status, contentType, body: answer } = res.handshake;
    return new Response(answer.byteLength === 0 ? null : (answer as Uint8Array<ArrayBuffer>), {
      status,
      headers: { "content-type": contentType, "x-content-type-options": "nosniff" },
    });
  }
  if (res.throttled) {
    // 503, not 429: upstreams retry 500/502/503/504 only, and a 429 would lose a genuine notification.
    const { code, message, retryAfterSeconds } = res.throttled;
    return errorResponse(503, code, message, [], { "retry-after": String(retryAfterSeconds) });
  }
  if (res.dropped && res.dropReason === DropReason.UNKNOWN_CHANNEL) {
    // 4xx, as below: a made-up channel id is not resent forever.
    return errorResponse(
      404,
      "unknown_channel",
      "The integration refuses notifications for channels it does not know (strict_channels); this one was dropped.",
    );
  }
  if (res.dropped) {
    // 4xx: the upstream retries only 5xx, so a forged or stale notification is not resent forever.
    return errorResponse(
      403,
      "channel_token_mismatch",
      "The notification's channel token does not match its channel's; it was dropped.",
    );
  }
  // The provider's accept status (a batch provider's 202), 200 by default.
  const status = res.acceptStatus === 0 ? 200 : res.acceptStatus;
  if (status === 204) return new Response(null, { status });
  const ids = res.notificationIds.length > 0 ? { ids: res.notificationIds } : {};
  return json({ data: { id: res.notificationId, duplicate: res.duplicate, ...ids } }, status);
}
