import type { ServiceImpl } from "@connectrpc/connect";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../context.ts";
import { CredentialRefresher } from "../refresh/credential-refresher.ts";
import { createConnection } from "./connection/create-connection.ts";
import { deleteConnection } from "./connection/delete-connection.ts";
import { getCredentials } from "./connection/get-credentials.ts";
import { getConnection, listConnections } from "./connection/read-connections.ts";
import { updateConnection } from "./connection/update-connection.ts";
import { writeMetadata } from "./connection/write-metadata.ts";

/** The connection RPCs, one file each under `connection/` (MatchNotifications: `match-notifications.ts`). */
export function connectionHandlers(ctx: ConnectionServiceContext): Partial<ServiceImpl<typeof ConnectionService>> {
  const refresher = new CredentialRefresher(ctx);
  return {
    createConnection: (req) => createConnection(ctx, req),
    getConnection: (req) => getConnection(ctx, refresher, req),
    listConnections: (req) => listConnections(ctx, req),
    updateConnection: (req) => updateConnection(ctx, req),
    deleteConnection: (req) => deleteConnection(ctx, req),
    writeMetadata: (req) => writeMetadata(ctx, req),
    getCredentials: (req) => getCredentials(ctx, refresher, req),
  };
}
