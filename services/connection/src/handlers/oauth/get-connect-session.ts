import type { JsonObject } from "@bufbuild/protobuf";
import type { GetConnectSessionRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import { toIntegration } from "../../mappers.ts";
import { resolveConnectSession, sessionAllows } from "../../oauth/connect-sessions.ts";

/** A connect session as its connect page reads it: the integrations it may use, its end user and overrides. */
export async function getConnectSession(ctx: ConnectionServiceContext, req: GetConnectSessionRequest) {
  const session = await resolveConnectSession(ctx, req.token);
  const all = await ctx.store.listIntegrations(session.environmentId);
  return {
    integrations: all.filter((i) => sessionAllows(session, i.uniqueKey)).map((i) => toIntegration(i, ctx.baseUrl)),
    environmentId: session.environmentId,
    endUser: (session.endUser ?? undefined) as JsonObject | undefined,
    expiresAtMs: BigInt(session.expiresAt),
    reconnectConnectionId: session.reconnect?.connectionId ?? "",
    organization: (session.organization ?? undefined) as JsonObject | undefined,
    tags: session.tags,
    allowedIntegrations: session.allowedIntegrations,
    integrationsConfigDefaults: Object.fromEntries(
      Object.entries(session.integrationsConfigDefaults).map(([k, d]) => [
        k,
        { ...d, connectionConfig: d.connectionConfig as JsonObject },
      ]),
    ),
    overrides: Object.fromEntries(
      Object.entries(session.overrides).map(([k, o]) => [
        k,
        {
          docsConnect: o.docsConnect ?? "",
          userScopes: o.userScopes ?? [],
          authorizationParams: o.authorizationParams ?? {},
          connectionConfig: o.connectionConfig as JsonObject | undefined,
        },
      ]),
    ),
  };
}
