import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  DropReason,
  type ReceiveNotificationRequestSchema,
  type ReceiveNotificationResult,
} from "@junction/contracts/webhook/v1/webhook_service_pb";
import { Batcher, fromItemError, readBytesLimited } from "@junction/platform";
import { documentationExample, MAX_NOTIFICATION_BODY_BYTES } from "@junction/providers";
import type { GatewayClients } from "../clients.ts";
import { errorResponse } from "../http/error-response.ts";
import { plainRequestTarget } from "../http/request-target.ts";
import { json } from "../http/json.ts";
import { intakeFailure } from "./intake-failure.ts";
import { z } from "zod";
import { dataOf } from "../openapi/route-doc.ts";
import type { Route } from "../router.ts";

/** More headers than this are refused with 431 (Bun.serve itself refuses past about 100). */
const MAX_HEADERS = 100;
/** More bytes of header names and values than this are refused with 431. */
const MAX_HEADER_BYTES = 32 * 1024;
/** An empty body, shared: the usual notification carries none. */
const NO_BODY = new Uint8Array(0);
/**
 * Credentials are never recorded or forwarded (see the webhook service's notification-headers.ts).
 * `authorization` goes on to the webhook service, whose provider reader may check it (a signed push
 * token) and which drops it before recording anything.
 */
const CREDENTIAL_HEADERS = new Set(["proxy-authorization", "cookie"]);

type ReceiveRequest = MessageInitShape<typeof ReceiveNotificationRequestSchema>;

/**
 * POST /webhook/{environment}/{integration}: upstream notifications (spec: Inbound webhook
 * endpoint). No secret key: the upstream cannot send one. Answers 200 (or the provider's own 2xx)
 * once the webhook service has recorded the notification, or each of a batch's, durably; matching
 * and forwarding happen after. A provider's handshake is answered as its adapter says, nothing
 * recorded. Other methods get 405 (the upstream only POSTs).
 */
export function inboundWebhookRoutes(): Route[] {
  let receipts: Batcher<ReceiveRequest, ReceiveNotificationResult> | undefined;
  // The notifications received at the same time are recorded with one ReceiveNotifications call.
  const receive = (clients: GatewayClients, request: ReceiveRequest) => {
    receipts ??= new Batcher(
      async (requests: ReceiveRequest[]) => (await clients.webhook.receiveNotifications({ requests })).results,
    );
    return receipts.call(request).then((result) => {
      if (result.outcome.case === "error") throw fromItemError(result.outcome.value);
      if (result.outcome.case === undefined) throw new Error("ReceiveNotifications answered without an outcome");
      return result.outcome.value;
    });
  };
  return [
    {
      method: "POST",
      pattern: "/webhook/:environment/:integration",
      auth: false,
      handler: async ({ req, params, clients, url, logger, requestId }) => {
        const headers: Record<string, string> = {};
        let count = 0;
        let bytes = 0;
        // Header names from the Fetch API are already lower-case; repeated headers arrive joined by ", ".
        req.headers.forEach((value, name) => {
          count++;
          bytes += name.length + value.length;
          if (!CREDENTIAL_HEADERS.has(name)) headers[name] = value;
        });
        if (count > MAX_HEADERS || bytes > MAX_HEADER_BYTES) {
          return errorResponse(
            431,
            "headers_too_large",
            `A notification may carry at most ${MAX_HEADERS} headers and ${MAX_HEADER_BYTES} bytes of them; it was not recorded.`,
          );
        }
        // Read up to the largest body any provider accepts; the webhook service applies the provider's own limit.
        const body = await readBody(req, MAX_NOTIFICATION_BODY_BYTES);
        if (body === null) return bodyTooLarge(MAX_NOTIFICATION_BODY_BYTES);
        // The gateway read the target without the URL parser (a cached answer); parse only when it could not.
        const search = (plainRequestTarget(req.url) ?? url).search;
        let res: Awaited<ReturnType<typeof receive>>;
        try {
          res = await receive(clients, {
            environmentId: params.environment ?? "",
            providerConfigKey: params.integration ?? "",
            headers,
            bodyLength: BigInt(body.byteLength),
            body,
            contentType: headers["content-type"] ?? "",
            query: search === "" ? "" : search.slice(1),
          });
        } catch (err) {
          // Not recorded: a 4xx only for a refusal of the notification itself, else 503 (intake-failure.ts).
          return intakeFailure(err, logger, requestId);
        }
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
      },
      doc: {
        summary: "Receive an upstream notification",
        description:
          `Where the upstream (e.g. ${documentationExample.displayName}) sends notifications; no secret key (the upstream cannot send one). ` +
          "Answers 200 once recorded durably (a provider that sends batches: its own 2xx, e.g. 202, once every item is recorded); " +
          "matching and forwarding happen after. A body is recorded up to the provider's limit. " +
          "A provider's handshake (a subscription validation request) is answered as the provider expects, nothing recorded. " +
          "Over the intake limits (per integration and per channel rates, the integration's pending work) the answer is 503 with Retry-After, nothing recorded: the upstream sends it again later. " +
          "So is a notification that could not be recorded because a service or store Junction depends on failed (503 `service_unavailable`, Retry-After): a 2xx means recorded durably, a 4xx a refusal of the notification itself. " +
          "An integration with `strict_channels` drops notifications for channels unknown to it (404 `unknown_channel`; a batch provider's items are dropped one by one and the batch answered as usual).",
        tags: ["Webhooks"],
        params: { environment: "The environment's id.", integration: "The integration's id." },
        responses: {
          200: dataOf(
            z.object({
              id: z.string(),
              duplicate: z.boolean().describe("Already received (the same message)."),
              ids: z.array(z.string()).optional().describe("A batch's recorded notifications, one per item kept."),
            }),
          ),
        },
        errors: [
          "unknown_webhook_url",
          "invalid_notification",
          "headers_too_large",
          "request_too_large",
          "channel_token_mismatch",
          "unknown_channel",
          "webhook_rate_limited",
          "channel_rate_limited",
          "webhook_backlog_full",
        ],
      },
    },
  ];
}

function bodyTooLarge(limit: number): Response {
  return errorResponse(
    413,
    "request_too_large",
    `A notification's body may hold at most ${limit} bytes; this one was refused and not recorded.`,
  );
}

/** Reads the body; null when it exceeds `limit` bytes. */
async function readBody(req: Request, limit: number): Promise<Uint8Array | null> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) return null;
  // No length and no chunked encoding means no body (RFC 9112 §6.3): the usual notification.
  if (declared === 0 && !req.headers.has("transfer-encoding")) return NO_BODY;
  return readBytesLimited(req.body, limit);
}
