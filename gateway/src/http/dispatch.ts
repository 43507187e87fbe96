import { type Logger, newId } from "@junction/platform";
import type { GatewayClients } from "../clients.ts";
import type { Authenticator, Grant } from "../middleware/authenticate.ts";
import { connectSessionBearer } from "../middleware/connect-session-bearer.ts";
import { routeScope } from "../middleware/route-scopes.ts";
import type { ApiKeyScope } from "../middleware/scopes.ts";
import type { Route, Router } from "../router.ts";
import { errorResponse, toErrorResponse } from "./error-response.ts";
import { headerRecord } from "./header-record.ts";
import { RequestContext } from "./request-context.ts";
import type { RequestRecorder } from "./request-log.ts";
import { plainRequestTarget, type RequestTarget } from "./request-target.ts";

const REQUEST_ID_RE = /^[A-Za-z0-9_.-]{1,64}$/;

/** What a request is dispatched with. */
export interface DispatchParts {
  router: Router;
  authenticator: Authenticator;
  clients: GatewayClients;
  logger: Logger;
  baseUrl: string;
  record: RequestRecorder;
}

/** The gateway's fetch: request id, routing, auth, the one error body around every route, then its record. */
export function createDispatch(parts: DispatchParts): (req: Request) => Promise<Response> {
  const { router, clients, logger, baseUrl, record } = parts;
  const handle = routeHandler(parts.authenticator);
  return async function fetch(req: Request): Promise<Response> {
    const started = performance.now();
    // The headers, read once (one native call) for the request id, the secret key and the route.
    const headers = headerRecord(req.headers);
    const incoming = headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID_RE.test(incoming) ? incoming : newId("req");
    const target = requestTarget(req.url);
    // Read once: each read of a Request's property is a call into Bun's native code.
    const { method } = req;
    let res: Response;
    let passedThrough = false;
    // The route's pattern (never the path: it holds ids) labels the request's metrics.
    let routePattern = "unmatched";
    try {
      const found = target === undefined ? undefined : router.find(method, target.pathname);
      if (target === undefined || found === undefined) {
        // A Host header the URL parser refuses (e.g. with a space).
        res = errorResponse(400, "invalid_url", "The request URL could not be parsed.");
      } else if (Array.isArray(found)) res = notRouted(method, target.pathname, found);
      else {
        const url = target instanceof URL ? target : undefined;
        const path = target.pathname;
        const ctx = new RequestContext(req, headers, url, found, path, requestId, clients, logger, baseUrl);
        routePattern = found.pattern;
        res = await handle(found, ctx);
        passedThrough = found.passesThrough === true;
      }
    } catch (err) {
      res = toErrorResponse(err, logger, requestId);
    }
    // An upstream's answer passed on as it came gets the id only when the caller sent one (see Route).
    if (!passedThrough || requestId === incoming) res.headers.set("x-request-id", requestId);
    record(method, routePattern, res.status, started, requestId, target?.pathname ?? "");
    return res;
  };
}

/** Most targets need no URL object: routing and the request log read the path only. */
function requestTarget(rawUrl: string): RequestTarget | URL | undefined {
  return plainRequestTarget(rawUrl) ?? URL.parse(rawUrl) ?? undefined;
}

/** Runs a route, authenticating first without a hop when the secret key is cached. */
function routeHandler(authenticator: Authenticator) {
  // Each route's scope, looked up once per route (not per request).
  const scopes = new Map<Route, ApiKeyScope>();
  const scopeOf = (route: Route): ApiKeyScope => {
    let scope = scopes.get(route);
    if (scope === undefined) {
      scope = routeScope(route);
      scopes.set(route, scope);
    }
    return scope;
  };
  return (route: Route, ctx: RequestContext): Response | Promise<Response> => {
    if (route.auth === false) return route.handler(ctx);
    if (route.acceptsConnectSession) {
      const token = connectSessionBearer(ctx.headers.authorization);
      if (token !== undefined) {
        ctx.connectSessionToken = token;
        return route.handler(ctx);
      }
    }
    const grant = authenticator.grantOfHeader(ctx.headers.authorization, scopeOf(route));
    if (grant instanceof Promise) return handleAfter(grant, route, ctx);
    ctx.environmentId = grant.environmentId;
    ctx.secretKey = grant.key;
    return route.handler(ctx);
  };
}

/** Runs the route once the secret key is verified (a key not in the cache). */
async function handleAfter(pending: Promise<Grant>, route: Route, ctx: RequestContext): Promise<Response> {
  const grant = await pending;
  ctx.environmentId = grant.environmentId;
  ctx.secretKey = grant.key;
  return route.handler(ctx);
}

/** 405 naming the allowed methods when the path has routes, otherwise 404. */
function notRouted(method: string, path: string, allowed: string[]): Response {
  if (allowed.length === 0) return errorResponse(404, "not_found", `No route for ${method} ${path}.`);
  return errorResponse(405, "method_not_allowed", `${method} is not allowed here; use ${allowed.join(", ")}.`, [], {
    allow: allowed.join(", "),
  });
}
