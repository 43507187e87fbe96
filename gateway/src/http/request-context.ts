import type { AuthenticatedKey } from "../middleware/authenticate.ts";
import type { Logger } from "@junction/platform";
import type { GatewayClients } from "../clients.ts";
import { type MatchedRoute, type RouteContext, routeParams } from "../router.ts";
import type { HeaderRecord } from "./header-record.ts";

/**
 * A route's context. The URL is parsed and the path's params are read on first use: most routes never
 * read more than the path, and the proxy's route neither.
 */
export class RequestContext implements RouteContext {
  environmentId = "";
  secretKey: AuthenticatedKey | undefined;
  connectSessionToken: string | undefined;
  private readParams: Record<string, string> | undefined;

  constructor(
    readonly req: Request,
    readonly headers: HeaderRecord,
    private parsedUrl: URL | undefined,
    private readonly route: MatchedRoute,
    private readonly path: string,
    readonly requestId: string,
    readonly clients: GatewayClients,
    readonly logger: Logger,
    readonly baseUrl: string,
  ) {}

  get url(): URL {
    this.parsedUrl ??= new URL(this.req.url);
    return this.parsedUrl;
  }

  get params(): Record<string, string> {
    this.readParams ??= routeParams(this.route, this.path);
    return this.readParams;
  }
}
