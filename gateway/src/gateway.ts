import { createLogger, type Logger, newId } from "@junction/platform";
import type { GatewayClients } from "./clients.ts";
import { errorResponse, toErrorResponse } from "./http/error-response.ts";
import { Authenticator } from "./middleware/authenticate.ts";
import { type Route, Router } from "./router.ts";
import { connectionRoutes } from "./routes/connections.ts";
import { healthRoutes } from "./routes/health.ts";
import { integrationRoutes } from "./routes/integrations.ts";
import { metadataRoutes } from "./routes/metadata.ts";
import { providerRoutes } from "./routes/providers.ts";
import { secretKeyRoutes } from "./routes/secret-keys.ts";
import { webhookSettingsRoutes } from "./routes/webhook-settings.ts";
import { oauthRoutes } from "./routes/oauth.ts";
import { proxyRoutes } from "./routes/proxy.ts";
import { inboundWebhookRoutes } from "./routes/inbound-webhook.ts";
import { deliveryRoutes } from "./routes/deliveries.ts";
import { scriptRoutes } from "./routes/scripts.ts";
import { channelRoutes } from "./routes/channels.ts";
import { dashboardRoutes } from "./routes/dashboard.ts";

export interface GatewayDeps {
  clients: GatewayClients;
  /** {base_url} of the spec. */
  baseUrl: string;
  logger?: Logger;
  now?: () => number;
  /** Extra routes (later capabilities register theirs here). */
  routes?: Route[];
}

export interface Gateway {
  fetch(req: Request): Promise<Response>;
  authenticator: Authenticator;
}

const REQUEST_ID_RE = /^[A-Za-z0-9_.-]{1,64}$/;

/** The HTTP gateway: request ids, logs, auth, routing and the one error body around every route. */
export function createGateway(deps: GatewayDeps): Gateway {
  const logger = deps.logger ?? createLogger({ base: { component: "gateway" } });
  const authenticator = new Authenticator(deps.clients, deps.now);
  const router = new Router().add(
    ...healthRoutes(),
    ...providerRoutes(),
    ...integrationRoutes(),
    ...connectionRoutes(),
    ...metadataRoutes(),
    ...secretKeyRoutes(authenticator),
    ...webhookSettingsRoutes(),
    ...oauthRoutes(),
    ...proxyRoutes({ now: () => (deps.now ?? Date.now)() }),
    ...inboundWebhookRoutes(),
    ...deliveryRoutes(),
    ...scriptRoutes(),
    ...channelRoutes(),
    ...dashboardRoutes({ router: () => router, now: deps.now }),
    ...(deps.routes ?? []),
  );

  async function fetch(req: Request): Promise<Response> {
    const started = performance.now();
    const incoming = req.headers.get("x-request-id");
    const requestId = incoming && REQUEST_ID_RE.test(incoming) ? incoming : newId("run").replace("run_", "req_");
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return errorResponse(400, "invalid_url", "The request URL could not be parsed.");
    }
    let res: Response;
    try {
      res = await dispatch(req, url, requestId);
    } catch (err) {
      res = toErrorResponse(err, logger, requestId);
    }
    res.headers.set("x-request-id", requestId);
    logger.info("request", {
      requestId,
      method: req.method,
      path: url.pathname,
      status: res.status,
      ms: Math.round((performance.now() - started) * 100) / 100,
    });
    return res;
  }

  async function dispatch(req: Request, url: URL, requestId: string): Promise<Response> {
    const found = router.match(req.method, url.pathname);
    if ("allowed" in found) {
      if (found.allowed.length > 0) {
        return errorResponse(
          405,
          "method_not_allowed",
          `${req.method} is not allowed here; use ${found.allowed.join(", ")}.`,
          [],
          {
            allow: found.allowed.join(", "),
          },
        );
      }
      return errorResponse(404, "not_found", `No route for ${req.method} ${url.pathname}.`);
    }
    const { route, params } = found;
    const environmentId = route.auth === false ? "" : await authenticator.authenticate(req);
    return route.handler({
      req,
      url,
      params,
      requestId,
      environmentId,
      clients: deps.clients,
      logger,
      baseUrl: deps.baseUrl,
    });
  }

  return { fetch, authenticator };
}
