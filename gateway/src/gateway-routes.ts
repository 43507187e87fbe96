import { type Clock, ExpiringCache, type MetricsRegistry } from "@junction/platform";
import { proxyMetrics } from "@junction/upstream-proxy";
import type { AuthSockets } from "./auth-socket/auth-sockets.ts";
import type { GatewayDeps } from "./gateway.ts";
import { createMcpAuth } from "./mcp-auth/mcp-auth.ts";
import type { Authenticator } from "./middleware/authenticate.ts";
import { NO_OVERVIEW } from "./overview/overview-store.ts";
import { Router } from "./router.ts";
import { apiAuthRoutes } from "./routes/api-auth.ts";
import { channelRoutes } from "./routes/channels.ts";
import { connectUiRoutes } from "./routes/connect-ui.ts";
import { connectionRoutes } from "./routes/connections.ts";
import { dashboardRoutes } from "./routes/dashboard.ts";
import { deliveryRoutes } from "./routes/deliveries.ts";
import { healthRoutes } from "./routes/health.ts";
import { inboundWebhookRoutes } from "./routes/inbound-webhook.ts";
import { integrationRoutes } from "./routes/integrations.ts";
import { logRoutes } from "./routes/logs.ts";
import { mcpRoutes } from "./routes/mcp/mcp-routes.ts";
import { mcpAuthRoutes } from "./routes/mcp-auth/mcp-auth-routes.ts";
import type { RefusalLog } from "./routes/oauth/authorization-refusals.ts";
import { recordingSessionRefusals } from "./routes/oauth/recording-refusals.ts";
import { metadataRoutes } from "./routes/metadata.ts";
import { oauthRoutes } from "./routes/oauth.ts";
import { observeRoutes } from "./routes/observe.ts";
import { openApiRoutes } from "./routes/openapi.ts";
import { overviewRoutes } from "./routes/overview.ts";
import { patchConnectionRoute } from "./routes/patch-connection.ts";
import { providerRoutes } from "./routes/providers.ts";
import { proxyRoutes } from "./routes/proxy.ts";
import { recordChangesRoute } from "./routes/record-changes.ts";
import { recordRoutes } from "./routes/records.ts";
import { recordsRetentionRoutes } from "./routes/records-retention.ts";
import { scriptRoutes } from "./routes/scripts.ts";
import { secretKeyRoutes } from "./routes/secret-keys.ts";
import { webhookSettingsRoutes } from "./routes/webhook-settings.ts";
import { rpcRoutes } from "./rpc/rpc-routes.ts";

/** What the gateway made that its routes share. */
export interface RouteParts {
  authenticator: Authenticator;
  authSockets: AuthSockets;
  clock: Clock;
  metrics: MetricsRegistry;
}

/** Every route family of the gateway, in the order a path is matched against them. */
export function gatewayRouter(deps: GatewayDeps, parts: RouteParts): Router {
  const { authenticator, authSockets, clock, metrics } = parts;
  const now = () => clock.now();
  // The authorization routes (and the Connect UI's reads with a session token) record what they refuse
  // before the connection service is asked.
  const refusals: RefusalLog = {
    operations: deps.operations,
    clock,
    deadTokens: new ExpiringCache<string, true>({ maxEntries: 1_000, now }),
  };
  const router: Router = new Router().add(
    ...healthRoutes(),
    ...recordingSessionRefusals(refusals, [...providerRoutes(), ...integrationRoutes()]),
    ...connectionRoutes(),
    ...metadataRoutes(),
    // After the metadata routes: PATCH /connections/metadata is theirs.
    patchConnectionRoute(),
    ...secretKeyRoutes(authenticator),
    ...webhookSettingsRoutes(),
    ...oauthRoutes(authSockets.relay, refusals, authSockets.path),
    ...apiAuthRoutes(refusals),
    ...connectUiRoutes(deps.connectUi ?? { connectUiFrameAncestors: [] }, refusals),
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
    ...mcpAuthRoutes(createMcpAuth(now, deps.mcpAuth, deps.operations)),
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
  return router;
}
