import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  ReceiveNotificationRequestSchema,
  ReceiveNotificationResult,
} from "@junction/contracts/webhook/v1/webhook_service_pb";
import { Batcher, fromItemError } from "@junction/platform";
import type { GatewayClients } from "../clients.ts";
import { errorResponse } from "../http/error-response.ts";
import { json } from "../http/json.ts";
import { z } from "zod";
import { dataOf } from "../openapi/route-doc.ts";
import type { Route } from "../router.ts";

/** More headers than this are refused with 431 (Bun.serve itself refuses past about 100). */
const MAX_HEADERS = 100;
/** More bytes of header names and values than this are refused with 431. */
const MAX_HEADER_BYTES = 32 * 1024;
/**
 * Notifications carry no body (spec: Inbound webhook endpoint). One that does is accepted and its
 * bytes discarded (only its length is noted) up to this size; a larger one is refused with 413.
 */
const MAX_DISCARDED_BODY = 64 * 1024;
/** Credentials are never recorded or forwarded (see the webhook service's notification-headers.ts). */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie"]);

type ReceiveRequest = MessageInitShape<typeof ReceiveNotificationRequestSchema>;

/**
 * POST /webhook/{environment}/{integration}: upstream notifications (spec: Inbound webhook
 * endpoint). No secret key: the upstream cannot send one. Answers 200 once the webhook service
 * has recorded the notification durably; matching and forwarding happen after. Other methods get
 * 405 (the upstream only POSTs).
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
      handler: async ({ req, params, clients }) => {
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
        const bodyLength = await discardBody(req);
        if (bodyLength === null) {
          return errorResponse(
            413,
            "request_too_large",
            `Notifications carry no body; one larger than ${MAX_DISCARDED_BODY} bytes is refused and not recorded.`,
          );
        }
        const res = await receive(clients, {
          environmentId: params.environment ?? "",
          providerConfigKey: params.integration ?? "",
          headers,
          bodyLength: BigInt(bodyLength),
        });
        if (res.dropped) {
          // 4xx: the upstream retries only 5xx, so a forged or stale notification is not resent forever.
          return errorResponse(
            403,
            "channel_token_mismatch",
            "The notification's channel token does not match its channel's; it was dropped.",
          );
        }
        return json({ data: { id: res.notificationId, duplicate: res.duplicate } });
      },
      doc: {
        summary: "Receive an upstream notification",
        description:
          "Where the upstream (e.g. Google Calendar) sends notifications; no secret key (the upstream cannot send one). " +
          "Answers 200 once recorded durably; matching and forwarding happen after. A body is discarded.",
        tags: ["Webhooks"],
        params: { environment: "The environment's id.", integration: "The integration's id." },
        responses: {
          200: dataOf(
            z.object({ id: z.string(), duplicate: z.boolean().describe("Already received (the same message).") }),
          ),
        },
        errors: [
          "unknown_webhook_url",
          "invalid_notification",
          "headers_too_large",
          "request_too_large",
          "channel_token_mismatch",
        ],
      },
    },
  ];
}

/** Reads and drops the body; its length, or null when it exceeds the limit. */
async function discardBody(req: Request): Promise<number | null> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_DISCARDED_BODY) return null;
  // No length and no chunked encoding means no body (RFC 9112 §6.3): the usual notification.
  if (declared === 0 && !req.headers.has("transfer-encoding")) return 0;
  if (!req.body) return 0;
  const reader = req.body.getReader();
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return size;
    size += value.byteLength;
    if (size > MAX_DISCARDED_BODY) {
      await reader.cancel();
      return null;
    }
  }
}
