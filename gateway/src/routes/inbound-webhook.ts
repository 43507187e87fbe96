import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  ReceiveNotificationRequestSchema,
  ReceiveNotificationResponse,
  ReceiveNotificationResult,
} from "@junction/contracts/webhook/v1/webhook_service_pb";
import { Batcher, fromItemError, readBytesLimited } from "@junction/platform";
import { MAX_NOTIFICATION_BODY_BYTES } from "@junction/providers";
import type { GatewayClients } from "../clients.ts";
import { errorResponse } from "../http/error-response.ts";
import { plainRequestTarget } from "../http/request-target.ts";
import type { Route, RouteContext } from "../router.ts";
import { INBOUND_WEBHOOK_DOC } from "./inbound-webhook-doc.ts";
import { intakeFailure } from "./intake-failure.ts";
import { receiptAnswer } from "./receipt-answer.ts";

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
/** Records one notification durably with the webhook service; what it answered. */
type Receive = (clients: GatewayClients, request: ReceiveRequest) => Promise<ReceiveNotificationResponse>;

/**
 * POST /webhook/{environment}/{integration}: upstream notifications (spec: Inbound webhook
 * endpoint). No secret key: the upstream cannot send one. Answers 200 (or the provider's own 2xx)
 * once the webhook service has recorded the notification, or each of a batch's, durably; matching
 * and forwarding happen after. A provider's handshake is answered as its adapter says, nothing
 * recorded. Other methods get 405 (the upstream only POSTs).
 */
export function inboundWebhookRoutes(): Route[] {
  const receive = notificationReceiver();
  return [
    {
      method: "POST",
      pattern: "/webhook/:environment/:integration",
      auth: false,
      handler: (ctx) => receiveInbound(receive, ctx),
      doc: INBOUND_WEBHOOK_DOC,
    },
  ];
}

/** The notifications received at the same time are recorded with one ReceiveNotifications call. */
function notificationReceiver(): Receive {
  let receipts: Batcher<ReceiveRequest, ReceiveNotificationResult> | undefined;
  return (clients, request) => {
    receipts ??= new Batcher(
      async (requests: ReceiveRequest[]) => (await clients.webhook.receiveNotifications({ requests })).results,
    );
    return receipts.call(request).then(receivedOrThrow);
  };
}

/** A batch item's answer, or its error thrown. */
function receivedOrThrow(result: ReceiveNotificationResult): ReceiveNotificationResponse {
  if (result.outcome.case === "error") throw fromItemError(result.outcome.value);
  if (result.outcome.case === undefined) throw new Error("ReceiveNotifications answered without an outcome");
  return result.outcome.value;
}

/** Reads one notification within the limits, has it recorded, and answers the upstream. */
async function receiveInbound(
  receive: Receive,
  { req, params, clients, url, logger, requestId }: RouteContext,
): Promise<Response> {
  const headers = notificationHeaders(req);
  if (headers === null) {
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
  let res: ReceiveNotificationResponse;
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
  return receiptAnswer(res);
}

/** The headers to record, credentials left out; null when there are too many, or too many bytes of them. */
function notificationHeaders(req: Request): Record<string, string> | null {
  const headers: Record<string, string> = {};
  let count = 0;
  let bytes = 0;
  // Header names from the Fetch API are already lower-case; repeated headers arrive joined by ", ".
  req.headers.forEach((value, name) => {
    count++;
    bytes += name.length + value.length;
    if (!CREDENTIAL_HEADERS.has(name)) headers[name] = value;
  });
  return count > MAX_HEADERS || bytes > MAX_HEADER_BYTES ? null : headers;
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
