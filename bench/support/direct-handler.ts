import type { Logger } from "@junction/platform";
import type { GatewayClients } from "../../gateway/src/clients.ts";
import { headerRecord } from "../../gateway/src/http/header-record.ts";
import { plainRequestTarget } from "../../gateway/src/http/request-target.ts";
import { createUpstreamProxy } from "../../gateway/src/proxy/upstream-proxy.ts";

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
  const handler = createUpstreamProxy();
  return (req) =>
    handler({
      req,
      headers: headerRecord(req.headers),
      // As the gateway does it: the path and query read without a URL object, parsed only if needed.
      target: plainRequestTarget(req.url),
      get url() {
        return new URL(req.url);
      },
      params: {},
      requestId: "req_direct",
      environmentId: deps.environmentId,
      passedThrough: false,
      clients: deps.clients,
      logger: deps.logger,
      baseUrl: deps.baseUrl,
    });
}
