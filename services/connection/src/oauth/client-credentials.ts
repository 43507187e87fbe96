import { SCOPE_SEPARATORS, type ProviderAdapter } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import type { StoredCredentials } from "../credentials.ts";
import { errors } from "../errors.ts";
import type { IntegrationRecord } from "../store/records.ts";
import { resolveOAuthClient } from "./oauth-client.ts";
import { describeTokenFailure, requestToken } from "./token-client.ts";

/** Client credentials: a token requested with the integration's own client and scopes; a refusal is a clear error. */
export async function clientCredentials(
  ctx: ConnectionServiceContext,
  integ: IntegrationRecord,
  template: ProviderAdapter,
  connectionConfig: Record<string, unknown>,
): Promise<StoredCredentials> {
  const client = resolveOAuthClient(ctx, integ, template, integ.useTestCredentials, connectionConfig);
  const scope = integ.scopes.join(SCOPE_SEPARATORS[template.scopeSeparator]);
  const result = await requestToken(
    ctx.fetch,
    {
      tokenUrl: client.tokenUrl,
      params: { grant_type: "client_credentials", ...(scope !== "" ? { scope } : {}) },
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      definition: template,
    },
    ctx.oauth.tokenRequestTimeoutMs,
  );
  if (!result.ok) throw errors.clientCredentialsRefused(template.name, describeTokenFailure(result.failure));
  const at = ctx.clock.now();
  return {
    type: "OAUTH2_CC",
    accessToken: result.token.accessToken,
    refreshToken: "",
    expiresAt: result.token.expiresIn ? at + result.token.expiresIn * 1000 : null,
    raw: result.token.raw,
    ...(scope !== "" ? { scope } : {}),
  };
}
