import type { ServiceImpl } from "@connectrpc/connect";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { type ConnectionServiceDeps, createContext } from "./context.ts";
import { connectionHandlers } from "./handlers/connections.ts";
import { matchNotificationsHandler } from "./handlers/match-notifications.ts";
import { environmentHandlers } from "./handlers/environment.ts";
import { integrationHandlers } from "./handlers/integrations.ts";
import { oauthHandlers } from "./handlers/oauth.ts";
import { providerHandlers } from "./handlers/providers.ts";

/** The ConnectionService implementation, assembled from its handler groups. */
export function createConnectionService(deps: ConnectionServiceDeps): ServiceImpl<typeof ConnectionService> {
  const ctx = createContext(deps);
  return {
    ...environmentHandlers(ctx),
    ...providerHandlers(ctx),
    ...integrationHandlers(ctx),
    ...connectionHandlers(ctx),
    ...matchNotificationsHandler(ctx),
    ...oauthHandlers(ctx),
  } as ServiceImpl<typeof ConnectionService>;
}
