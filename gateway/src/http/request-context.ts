import type { AuthenticatedKey } from "../middleware/authenticate.ts";
import type { Logger } from "@junction/platform";
import type { GatewayClients } from "../clients.ts";
import type { RouteContext } from "../router.ts";
import type { HeaderRecord } from "./header-record.ts";

/** A route's context. The URL is parsed on first use: most routes never read more than the path. */
export class RequestContext implements RouteContext {
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
