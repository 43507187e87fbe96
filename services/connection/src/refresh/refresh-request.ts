import { SCOPE_SEPARATORS } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import type { StoredCredentials } from "../credentials.ts";
import { errors } from "../errors.ts";
import { resolveOAuthClient } from "../oauth/oauth-client.ts";
import { requestToken, type TokenResult } from "../oauth/token-client.ts";
import type { ConnectionRecord, IntegrationRecord } from "../store/records.ts";

/**
 * Asks the provider's token endpoint for a new access token: with the refresh token at the refresh URL,
 * or, for client credentials, with the client's own at the token URL.
 */
export async function requestRefresh(
  ctx: ConnectionServiceContext,
  integ: IntegrationRecord,
  rec: ConnectionRecord,
  creds: StoredCredentials,
): Promise<TokenResult> {
  const template = ctx.providers.get(integ.provider);
  if (!template)
    throw errors.unknownProvider(
      integ.provider,
      ctx.providers.list().map((p) => p.name),
    );
  const client = resolveOAuthClient(ctx, integ, template, creds.testCredentials === true, rec.connectionConfig);
  const scope = creds.scope ?? integ.scopes.join(SCOPE_SEPARATORS[template.scopeSeparator]);
  return requestToken(
    ctx.fetch,
    {
      // A client-credentials token comes from the token URL; a refresh token is spent at the refresh URL.
      tokenUrl: creds.type === "OAUTH2_CC" ? client.tokenUrl : client.refreshUrl,
      params:
        creds.type === "OAUTH2_CC"
          ? { grant_type: "client_credentials", ...(scope !== "" ? { scope } : {}) }
          : {
              grant_type: "refresh_token",
              refresh_token: creds.refreshToken,
              ...(template.refreshNeedsScopes && scope !== "" ? { scope } : {}),
            },
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      definition: template,
    },
    ctx.oauth.tokenRequestTimeoutMs,
  );
}
