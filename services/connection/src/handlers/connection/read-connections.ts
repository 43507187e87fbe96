import type {
  GetConnectionRequest,
  ListConnectionsRequest,
} from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import type { CredentialRefresher } from "../../refresh/credential-refresher.ts";
import { lookupConnection, lookupIntegration, presentConnection, toCredentials } from "./connection-lookup.ts";

/** GetConnection: a connection, with its credentials (refreshed first, as Nango does) when asked and allowed. */
export async function getConnection(
  ctx: ConnectionServiceContext,
  refresher: CredentialRefresher,
  req: GetConnectionRequest,
) {
  const loaded = await lookupConnection(ctx, req.providerConfigKey, req.connectionId);
  if (!req.includeCredentials) return { connection: presentConnection(ctx, loaded.rec) };
  if (!ctx.settings.credentialReads) throw errors.credentialReadsDisabled();
  // Refreshed as for the proxy (a token expiring within the margin first), as Nango does on this read.
  const { rec, creds } = await refresher.fresh(loaded, req.forceRefresh);
  return { connection: presentConnection(ctx, rec), credentials: creds ? toCredentials(creds) : undefined };
}

/** ListConnections: Nango's filters, a page of at most 2,000 and the total. */
export async function listConnections(ctx: ConnectionServiceContext, req: ListConnectionsRequest) {
  const env = await ctx.environment();
  for (const key of new Set([req.providerConfigKey, ...req.providerConfigKeys].filter(Boolean))) {
    await lookupIntegration(ctx, key);
  }
  const limit = req.limit === 0 ? 100 : req.limit;
  if (limit < 1 || limit > 2000) throw errors.invalidField("limit", "must be between 1 and 2000");
  if (req.page < 0) throw errors.invalidField("page", "must be 0 or more");
  const { connections, total } = await ctx.store.listConnections(env.id, {
    providerConfigKey: req.providerConfigKey || undefined,
    providerConfigKeys: req.providerConfigKeys.length > 0 ? req.providerConfigKeys : undefined,
    search: req.search || undefined,
    connectionId: req.connectionId || undefined,
    endUserId: req.endUserId || undefined,
    endUserEmail: req.endUserEmail || undefined,
    endUserDisplayName: req.endUserDisplayName || undefined,
    endUserOrganizationId: req.endUserOrganizationId || undefined,
    tags: Object.keys(req.tags).length > 0 ? req.tags : undefined,
    limit,
    offset: req.page * limit,
  });
  return { connections: connections.map((rec) => presentConnection(ctx, rec)), total };
}
