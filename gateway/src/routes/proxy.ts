import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import { documentationExample } from "@junction/providers";
import { z } from "zod";
import type { RouteDoc } from "../openapi/route-doc.ts";
import {
  createUpstreamProxy,
  hasNoBody,
  NO_BODY,
  plainRequestTarget,
  proxyServiceCalls,
  readUpstreamRequest,
  takeOutgoingBody,
  type OutgoingBody,
  type UpstreamProxyOptions,
  upstreamPath,
} from "@junction/upstream-proxy";
import type { Handler, Route } from "../router.ts";
import { proxyCallObserver } from "./proxy-operation.ts";

/** Every method Nango's proxy carries (spec: Proxy rules 3). HEAD is served by the GET route. */
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** The control headers, for the document only: the proxy reads them by hand (proxy-controls.ts), off zod. */
const controlHeaders = z.object({
  "provider-config-key": z.string().describe("The integration's id."),
  "connection-id": z.string().describe("The connection's id."),
  retries: z
    .string()
    .regex(/^\d{1,4}$/)
    .optional()
    .describe("Retries of this call (0 turns them off)."),
  "retry-on": z.string().optional().describe("Statuses retried besides 429 and 5xx, comma-separated, e.g. 409,423."),
  "base-url-override": z
    .string()
    .optional()
    .describe("Another base URL (under the integration's, or an allowed host)."),
  decompress: z.enum(["true", "false"]).optional().describe("true: the body decompressed, without Content-Encoding."),
});

const doc: RouteDoc = {
  summary: "Call the upstream API as the connection",
  description:
    "The request (method, path, query, body, headers other than the control ones) goes to the integration's base " +
    "URL with the connection's token; the upstream's answer (status, headers, body) comes back as it is, streamed. " +
    "Every method; HEAD as GET. Only the errors listed are Junction's.",
  tags: ["Proxy"],
  params: { path: `The upstream path, slashes included (e.g. ${documentationExample.proxyPath}).` },
  headers: controlHeaders,
  rawBody: "Passed on to the upstream as it is, streamed.",
  responses: { default: { description: "The upstream's answer, as it came.", contentType: "*/*" } },
  errors: [
    "invalid_headers",
    "invalid_proxy_path",
    "base_url_override_not_allowed",
    "unknown_provider_config",
    "unknown_connection",
    "integration_has_no_base_url",
    "connection_has_no_credentials",
    "connection_refresh_failed",
    "connection_refresh_busy",
    "upstream_unreachable",
    "upstream_timeout",
    "private_address_not_allowed",
  ],
};

/** /proxy/{upstream path}: the authenticated, streaming proxy (spec: Endpoints, Proxy rules 1–3). */
export function proxyRoutes(options: UpstreamProxyOptions = {}, operations?: OperationRecorder): Route[] {
  const handler = proxyHandler(operations?.enabled ? { ...options, observer: proxyCallObserver(operations) } : options);
  return METHODS.map((method) => ({ method, pattern: "/proxy/*", handler, doc, passesThrough: true }));
}

/**
 * The route over the proxy engine: reads the upstream path and query (without a URL object when the
 * target is plain), the control headers and the body of the request; the route context is the caller.
 * The engine is made on the first request, with the proxy service's client the gateway has then.
 */
function proxyHandler(options: UpstreamProxyOptions): Handler {
  let engine: ReturnType<typeof createUpstreamProxy> | undefined;
  return (ctx) => {
    engine ??= createUpstreamProxy({ ...options, ...proxyServiceCalls(ctx.clients.proxy) });
    const { req } = ctx;
    // Read again (a string comparison: see plainRequestTarget), not kept by the gateway for the proxy alone.
    const target = plainRequestTarget(req.url);
    const from = target ?? ctx.url;
    const path = upstreamPath(from);
    // Read once: each read of a Request's property is a call into Bun's native code.
    const { method } = req;
    const body = hasNoBody(method) ? NO_BODY : bodyOf(req);
    // A target read without a URL object is plain (isPlainTarget), and so is its end.
    const request = readUpstreamRequest(ctx.headers, method, path, from.search, target !== undefined, body);
    return engine(request, ctx);
  };
}

/**
 * How the engine takes a request's body, made here rather than in the handler: a closure there over `req`
 * would cost every request, GET included, a scope object (JavaScriptCore makes it on entry).
 */
function bodyOf(req: Request): () => Promise<OutgoingBody> {
  return () => takeOutgoingBody(req);
}
