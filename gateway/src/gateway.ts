import {
  type Clock,
  createLogger,
  type Logger,
  MetricsRegistry,
  newId,
  type ReadinessCheck,
  systemClock,
  type Tracing,
} from "@junction/platform";
import { type ProxySettings, proxyMetrics } from "@junction/upstream-proxy";
import type { Bus } from "@junction/bus";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { Server } from "bun";
import { type AuthSocketData, AuthSockets } from "./auth-socket/auth-sockets.ts";
import type { AuthSocketSettings } from "./auth-socket/auth-socket-settings.ts";
import type { GatewayClients } from "./clients.ts";
import { errorResponse, toErrorResponse } from "./http/error-response.ts";
import { type AuthenticatedKey, Authenticator, type Grant } from "./middleware/authenticate.ts";
import { connectSessionBearer } from "./middleware/connect-session-bearer.ts";
import { routeScope } from "./middleware/route-scopes.ts";
import type { ApiKeyScope } from "./middleware/scopes.ts";
import { plainRequestTarget } from "./http/request-target.ts";
import { type HeaderRecord, headerRecord } from "./http/header-record.ts";
import { type Route, type RouteContext, Router } from "./router.ts";
import { connectionRoutes } from "./routes/connections.ts";
import { healthRoutes } from "./routes/health.ts";
import { integrationRoutes } from "./routes/integrations.ts";
import { metadataRoutes } from "./routes/metadata.ts";
import { patchConnectionRoute } from "./routes/patch-connection.ts";
import { providerRoutes } from "./routes/providers.ts";
import { secretKeyRoutes } from "./routes/secret-keys.ts";
import { webhookSettingsRoutes } from "./routes/webhook-settings.ts";
import { oauthRoutes } from "./routes/oauth.ts";
import { apiAuthRoutes } from "./routes/api-auth.ts";
import { proxyRoutes } from "./routes/proxy.ts";
import { inboundWebhookRoutes } from "./routes/inbound-webhook.ts";
import { deliveryRoutes } from "./routes/deliveries.ts";
import { recordChangesRoute } from "./routes/record-changes.ts";
import { logRoutes } from "./routes/logs.ts";
import { recordRoutes } from "./routes/records.ts";
import { recordsRetentionRoutes } from "./routes/records-retention.ts";
import { scriptRoutes } from "./routes/scripts.ts";
import { mcpRoutes } from "./routes/mcp/mcp-routes.ts";
import { mcpAuthRoutes } from "./routes/mcp-auth/mcp-auth-routes.ts";
import { createMcpAuth, type McpAuthOptions } from "./mcp-auth/mcp-auth.ts";
import { channelRoutes } from "./routes/channels.ts";
import { dashboardRoutes } from "./routes/dashboard.ts";
import { connectUiRoutes } from "./routes/connect-ui.ts";
import type { ConnectUiSettings } from "./connect-ui/connect-ui-settings.ts";
import { openApiRoutes } from "./routes/openapi.ts";
import { observeRoutes } from "./routes/observe.ts";
import { overviewRoutes } from "./routes/overview.ts";
import { NO_OVERVIEW, type OverviewStore } from "./overview/overview-store.ts";
import { rpcRoutes } from "./rpc/rpc-routes.ts";

export interface GatewayDeps {
  clients: GatewayClients;
  /** {base_url} of the spec. */
  baseUrl: string;
  logger?: Logger;
  /** Time: token expiry, cache ages, the proxy's waits between retries (a manual clock in tests). */
  clock?: Clock;
  /** The proxy engine's timeouts and retries (JUNCTION_PROXY_*, loadProxySettings); defaults when absent. */
  proxySettings?: ProxySettings;
  /** Extra routes (later capabilities register theirs here). */
  routes?: Route[];
  /** The process's metrics (the embedded process shares one with its services); a new one when absent. */
  metrics?: MetricsRegistry;
  /** JUNCTION_METRICS_TOKEN: the Bearer token of GET /metrics; without it /metrics answers 404. */
  metricsToken?: string;
  /** What GET /ready checks: the services the gateway calls, and in the embedded process the store and bus. */
  readiness?: readonly ReadinessCheck[];
  /** The Connect UI's settings (JUNCTION_CONNECT_UI_*, loadConnectUiSettings); framed by no page when absent. */
  connectUi?: ConnectUiSettings;
  /** The process's tracing (OTEL_EXPORTER_OTLP_ENDPOINT): a server span per request, continuing its `traceparent`. */
  tracing?: Tracing;
  /**
   * The bus that carries an authorization's result to the gateway process holding the frontend SDK's
   * socket (distributed: NATS); without it results reach this process's sockets only.
   */
  bus?: Bus;
  /** The frontend SDK's WebSocket: its extra path, bound and lifetime (loadAuthSocketSettings). */
  authSocketSettings?: AuthSocketSettings;
  /** Where the overview's buckets are kept (cli: the process's sampler fills it); none kept when absent. */
  overview?: OverviewStore;
  /** The process's operations recorder: the gateway records proxy calls (none when absent). */
  operations?: OperationRecorder;
  /** A request's client address, as the server serving the gateway sees it (RunningGateway.addressOf). */
  addressOf?: (req: Request) => string | undefined;
  /** The MCP front door's store, settings (JUNCTION_MCP_*) and client-metadata fetch; defaults when absent. */
  mcpAuth?: McpAuthOptions;
}

export interface Gateway {
  fetch(req: Request): Promise<Response>;
  authenticator: Authenticator;
  /** Every route served, in registration order (the OpenAPI document is built from them). */
  routes(): readonly Route[];
  /** The frontend SDK's WebSocket upgrade at `/` and the configured path (serve.ts). */
  upgrade(req: Request, server: Server<AuthSocketData>): Response | undefined | false;
  /** The sockets and the relay of results: `start` subscribes to other processes' results, `stop` closes them. */
  authSockets: AuthSockets;
}

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

const REQUEST_ID_RE = /^[A-Za-z0-9_.-]{1,64}$/;

/** The HTTP gateway: request ids, logs, auth, routing and the one error body around every route. */
export function createGateway(deps: GatewayDeps): Gateway {
  const logger = deps.logger ?? createLogger({ base: { component: "gateway" } });
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now();
  const authenticator = new Authenticator(deps.clients, now);
  const authSockets = new AuthSockets({
    clock,
    logger,
    ...(deps.bus ? { bus: deps.bus } : {}),
    ...(deps.authSocketSettings ? { settings: deps.authSocketSettings } : {}),
  });
  const metrics = deps.metrics ?? new MetricsRegistry();
  const requests = metrics.counter(
    "junction_http_requests_total",
    "Gateway requests by method, route pattern and status.",
    ["method", "route", "status"],
  );
  const latency = metrics.histogram(
    "junction_http_request_seconds",
    "Gateway time to the answer's headers, by method and route pattern.",
    ["method", "route"],
  );
  const router = new Router().add(
    ...healthRoutes(),
    ...providerRoutes(),
    ...integrationRoutes(),
    ...connectionRoutes(),
    ...metadataRoutes(),
    // After the metadata routes: PATCH /connections/metadata is theirs.
    patchConnectionRoute(),
    ...secretKeyRoutes(authenticator),
    ...webhookSettingsRoutes(),
    ...oauthRoutes(authSockets.relay, authSockets.path),
    ...apiAuthRoutes(),
    ...connectUiRoutes(deps.connectUi),
    ...proxyRoutes(
      {
        clock,
        settings: deps.proxySettings,
        metrics: proxyMetrics(metrics),
        ...(deps.tracing ? { tracing: deps.tracing } : {}),
      },
      deps.operations,
    ),
    ...inboundWebhookRoutes(),
    ...deliveryRoutes(),
    ...logRoutes(),
    ...scriptRoutes(),
    recordChangesRoute(),
    ...recordRoutes(),
    ...recordsRetentionRoutes(),
    ...mcpRoutes(),
    ...mcpAuthRoutes(createMcpAuth(now, deps.mcpAuth)),
    ...channelRoutes(),
    ...overviewRoutes({ store: deps.overview ?? NO_OVERVIEW, now }),
    ...dashboardRoutes({
      router: () => router,
      now,
      addressOf: (req) => deps.addressOf?.(req),
      observability: { metrics: Boolean(deps.metricsToken), tracing: deps.tracing !== undefined },
    }),
    ...openApiRoutes({ routes: () => router.list(), baseUrl: deps.baseUrl }),
    ...observeRoutes({ metrics, metricsToken: deps.metricsToken, readiness: deps.readiness ?? [] }),
    ...rpcRoutes(authenticator),
    ...(deps.routes ?? []),
  );

  async function fetch(req: Request): Promise<Response> {
    const started = performance.now();
    // The headers, read once (one native call) for the request id, the secret key and the route.
    const headers = headerRecord(req.headers);
    const incoming = headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID_RE.test(incoming) ? incoming : newId("req");
    // Most targets need no URL object: routing and the request log read the path only.
    let url: URL | undefined;
    let target = plainRequestTarget(req.url);
    if (target === undefined) {
      try {
        url = new URL(req.url);
        target = url;
      } catch {
        // Left undefined: answered 400 below (a Host header the URL parser refuses, e.g. with a space).
      }
    }
    // Read once: each read of a Request's property is a call into Bun's native code.
    const { method } = req;
    let res: Response;
    let passedThrough = false;
    // The route's pattern (never the path: it holds ids) labels the request's metrics.
    let routePattern = "unmatched";
    try {
      if (target === undefined) res = errorResponse(400, "invalid_url", "The request URL could not be parsed.");
      else {
        const found = router.match(method, target.pathname);
        if ("allowed" in found) res = notRouted(method, target.pathname, found.allowed);
        else {
          const ctx = new RequestContext(
            req,
            headers,
            url,
            found.params,
            requestId,
            deps.clients,
            logger,
            deps.baseUrl,
          );
          routePattern = found.route.pattern;
          res = await handle(found.route, ctx);
          passedThrough = found.route.passesThrough === true;
        }
      }
    } catch (err) {
      res = toErrorResponse(err, logger, requestId);
    }
    // An upstream's answer passed on as it came gets the id only when the caller sent one (see Route).
    if (!passedThrough || requestId === incoming) res.headers.set("x-request-id", requestId);
    const status = res.status;
    const ms = performance.now() - started;
    // An unknown method names no route either: a client cannot make a new series per request.
    const methodLabel = routePattern === "unmatched" && !KNOWN_METHODS.has(method) ? "other" : method;
    requests.inc(methodLabel, routePattern, String(status));
    latency.observe(ms / 1000, methodLabel, routePattern);
    logger.info("request", {
      requestId,
      method,
      path: loggedPath(target?.pathname ?? ""),
      status,
      ms: Math.round(ms * 100) / 100,
    });
    return res;
  }

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

  /** Runs the route, authenticating first without a hop when the secret key is cached. */
  function handle(route: Route, ctx: RequestContext): Response | Promise<Response> {
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
  }

  const served = {
    authenticator,
    routes: () => router.list(),
    upgrade: (req: Request, server: Server<AuthSocketData>) => authSockets.upgrade(req, server),
    authSockets,
  };
  const tracing = deps.tracing;
  if (tracing === undefined) return { fetch, ...served };
  // Traced: each request in a server span named after its route (never its path: it holds ids).
  const traced = (req: Request): Promise<Response> => {
    const { method } = req;
    const target = plainRequestTarget(req.url) ?? URL.parse(req.url);
    const found = target ? router.match(method, target.pathname) : undefined;
    const route = found && !("allowed" in found) ? found.route.pattern : "unmatched";
    const traceparent = req.headers.get("traceparent");
    return tracing.span(
      `${method} ${route}`,
      { "http.request.method": method, "http.route": route },
      async (span) => {
        const res = await fetch(req);
        span.setAttribute("http.response.status_code", res.status);
        return res;
      },
      traceparent ? { parent: { traceparent }, kind: "server" } : { kind: "server" },
    );
  };
  return { fetch: traced, ...served };
}

/**
 * The path as the request log writes it: an MCP URL's id (who holds it may ask its end user's consent)
 * cut to its first characters, enough to tell URLs apart.
 */
export function loggedPath(path: string): string {
  const at = path.indexOf("/mcp/u/mcpu_");
  if (at < 0) return path;
  const start = at + "/mcp/u/".length;
  const end = path.indexOf("/", start);
  return `${path.slice(0, start + 12)}…${end < 0 ? "" : path.slice(end)}`;
}

/** 405 naming the allowed methods when the path has routes, otherwise 404. */
function notRouted(method: string, path: string, allowed: string[]): Response {
  if (allowed.length === 0) return errorResponse(404, "not_found", `No route for ${method} ${path}.`);
  return errorResponse(405, "method_not_allowed", `${method} is not allowed here; use ${allowed.join(", ")}.`, [], {
    allow: allowed.join(", "),
  });
}

/** A route's context. The URL is parsed on first use: most routes never read more than the path. */
class RequestContext implements RouteContext {
  environmentId = "";
  secretKey: AuthenticatedKey | undefined;
  connectSessionToken: string | undefined;

  constructor(
    readonly req: Request,
    readonly headers: HeaderRecord,
    private parsedUrl: URL | undefined,
    readonly params: Record<string, string>,
    readonly requestId: string,
    readonly clients: GatewayClients,
    readonly logger: Logger,
    readonly baseUrl: string,
  ) {}

  get url(): URL {
    this.parsedUrl ??= new URL(this.req.url);
    return this.parsedUrl;
  }
}

/** Runs the route once the secret key is verified (a key not in the cache). */
async function handleAfter(pending: Promise<Grant>, route: Route, ctx: RequestContext): Promise<Response> {
  const grant = await pending;
  ctx.environmentId = grant.environmentId;
  ctx.secretKey = grant.key;
  return route.handler(ctx);
}
