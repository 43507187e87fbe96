import type { Logger } from "@junction/platform";
import type { GatewayClients } from "../../gateway/src/clients.ts";
import { proxyRoutes } from "../../gateway/src/routes/proxy.ts";
import { headerRecord } from "@junction/upstream-proxy";

/**
 * Junction's /proxy handler alone, called as the gateway calls it but without the gateway around it:
 * no request id, router, secret-key check or request log (the environment is given). For the
 * benchmark's breakdown and the JavaScript loop only: it checks no secret key.
 */
export function directProxyHandler(deps: {
  clients: GatewayClients;
  baseUrl: string;
  environmentId: string;
  logger: Logger;
}): (req: Request) => Promise<Response> {
  const [route] = proxyRoutes();
  if (route === undefined) throw new Error("no /proxy route");
  const { handler } = route;
  return (req) =>
    handler({
      req,
      headers: headerRecord(req.headers),
      // As the gateway does it: parsed only if needed (the route reads a plain target without it).
      get url() {
        return new URL(req.url);
      },
      params: {},
      requestId: "req_direct",
      environmentId: deps.environmentId,
      clients: deps.clients,
      logger: deps.logger,
      baseUrl: deps.baseUrl,
    });
}
