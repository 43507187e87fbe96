import type { GetCredentialsRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import { toIntegration, toProvider } from "../../mappers.ts";
import { connectionBaseUrl, effectiveOverrides } from "../../oauth/oauth-client.ts";
import type { CredentialRefresher } from "../../refresh/credential-refresher.ts";
import { upstreamAuth } from "../../upstream-auth.ts";
import { lookupConnection, presentConnection, toCredentials } from "./connection-lookup.ts";

/** GetCredentials: what the proxy needs for one call — fresh credentials, the upstream's base URL and auth. */
export async function getCredentials(
  ctx: ConnectionServiceContext,
  refresher: CredentialRefresher,
  req: GetCredentialsRequest,
) {
  const loaded = await lookupConnection(ctx, req.providerConfigKey, req.connectionId);
  const template = ctx.providers.get(loaded.integ.provider);
  const { rec, creds } = await refresher.fresh(loaded, req.forceRefresh);
  // The proxy reads the upstream base URL here: the one of the client the token belongs to.
  let overrides = effectiveOverrides(
    ctx,
    loaded.integ,
    template,
    creds?.testCredentials === true,
    rec.connectionConfig,
  );
  // A base URL with a connection's placeholders ({instance_url}, {subdomain}) is answered filled,
  // where it came from: the operator's override stays one, the template's stays the provider's.
  const fill = (url: string) =>
    url.includes("{") ? connectionBaseUrl(loaded.integ, template, url, rec.connectionConfig) : url;
  if (overrides.baseUrl) overrides = { ...overrides, baseUrl: fill(overrides.baseUrl) };
  const provider = template ? toProvider({ ...template, baseUrl: fill(template.baseUrl) }) : undefined;
  return {
    connection: presentConnection(ctx, rec),
    credentials: creds ? toCredentials(creds) : undefined,
    integration: toIntegration({ ...loaded.integ, overrides }, ctx.baseUrl),
    provider,
    upstreamAuth: creds ? upstreamAuth(template, creds) : undefined,
  };
}
