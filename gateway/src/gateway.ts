import {
  type Clock,
  createLogger,
  type Logger,
  MetricsRegistry,
  type ReadinessCheck,
  systemClock,
  type Tracing,
} from "@junction/platform";
import type { ProxySettings } from "@junction/upstream-proxy";
import type { Bus } from "@junction/bus";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { Server } from "bun";
import { type AuthSocketData, AuthSockets } from "./auth-socket/auth-sockets.ts";
import type { AuthSocketSettings } from "./auth-socket/auth-socket-settings.ts";
import type { GatewayClients } from "./clients.ts";
import type { ConnectUiSettings } from "./connect-ui/connect-ui-settings.ts";
import { gatewayRouter } from "./gateway-routes.ts";
import { createDispatch } from "./http/dispatch.ts";
import { requestRecorder } from "./http/request-log.ts";
import { tracedFetch } from "./http/traced-fetch.ts";
import type { McpAuthOptions } from "./mcp-auth/mcp-auth.ts";
import { Authenticator } from "./middleware/authenticate.ts";
import type { OverviewStore } from "./overview/overview-store.ts";
import type { Route } from "./router.ts";

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

/**
 * The HTTP gateway: its route families (gateway-routes.ts) behind one dispatch (http/dispatch.ts) giving
 * request ids, logs, auth and the one error body around every route; in a server span when traced.
 */
export function createGateway(deps: GatewayDeps): Gateway {
  const logger = deps.logger ?? createLogger({ base: { component: "gateway" } });
  const clock = deps.clock ?? systemClock;
  const authenticator = new Authenticator(deps.clients, () => clock.now());
  const authSockets = new AuthSockets({
    clock,
    logger,
    ...(deps.bus ? { bus: deps.bus } : {}),
    ...(deps.authSocketSettings ? { settings: deps.authSocketSettings } : {}),
  });
  const metrics = deps.metrics ?? new MetricsRegistry();
  const router = gatewayRouter(deps, { authenticator, authSockets, clock, metrics });
  const fetch = createDispatch({
    router,
    authenticator,
    clients: deps.clients,
    logger,
    baseUrl: deps.baseUrl,
    record: requestRecorder(metrics, logger),
  });
  return {
    fetch: deps.tracing ? tracedFetch(fetch, router, deps.tracing) : fetch,
    authenticator,
    routes: () => router.list(),
    upgrade: (req: Request, server: Server<AuthSocketData>) => authSockets.upgrade(req, server),
    authSockets,
  };
}
