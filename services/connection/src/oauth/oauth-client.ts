import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import type { ProviderAdapter } from "@junction/providers";
import type { IntegrationRecord, UpstreamOverridesRecord } from "../store/records.ts";
import { fillUrlPlaceholders } from "./url-placeholders.ts";

/** The OAuth client and upstream URLs an authorization or refresh talks to. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  authorizationUrl: string;
  tokenUrl: string;
  baseUrl: string;
  /** The operator's test credentials (spec: Authentication 4) rather than the integration's own. */
  testCredentials: boolean;
}

/**
 * Resolves the client: the integration's own id and secret with its operator overrides over the
 * template's URLs, or, with `testCredentials`, the operator's test client with its own URLs over those.
 */
export function resolveOAuthClient(
  ctx: ConnectionServiceContext,
  integ: IntegrationRecord,
  template: ProviderAdapter,
  testCredentials: boolean,
): OAuthClient {
  const urls = effectiveUrls(ctx, integ, template, testCredentials);
  if (testCredentials) {
    const test = ctx.oauth.testCredentials[integ.provider];
    if (!test) throw errors.testCredentialsUnavailable(integ.uniqueKey, integ.provider);
    return { clientId: test.clientId, clientSecret: test.clientSecret, ...urls, testCredentials: true };
  }
  if (!integ.clientId || !integ.clientSecretEnc) throw errors.integrationMissingCredentials(integ.uniqueKey);
  return {
    clientId: integ.clientId,
    clientSecret: ctx.encryptor.decrypt(integ.clientSecretEnc),
    ...urls,
    testCredentials: false,
  };
}

/** The upstream URLs that apply, as overrides (what the proxy reads from GetCredentials). */
export function effectiveOverrides(
  ctx: ConnectionServiceContext,
  integ: IntegrationRecord,
  template: ProviderAdapter | undefined,
  testCredentials: boolean,
): UpstreamOverridesRecord {
  if (!testCredentials || !template) return integ.overrides;
  const urls = effectiveUrls(ctx, integ, template, true);
  return { baseUrl: urls.baseUrl, authorizationUrl: urls.authorizationUrl, tokenUrl: urls.tokenUrl };
}

/** The URLs in force: test credentials', then the operator's overrides, then the template's; `{key}` filled from the provider settings. */
function effectiveUrls(
  ctx: ConnectionServiceContext,
  integ: IntegrationRecord,
  template: ProviderAdapter,
  testCredentials: boolean,
) {
  const test = testCredentials ? ctx.oauth.testCredentials[integ.provider] : undefined;
  const o = integ.overrides;
  const settings = integ.providerSettings ?? {};
  return {
    authorizationUrl: fillUrlPlaceholders(
      test?.authorizationUrl || o.authorizationUrl || template.authorizationUrl,
      template,
      settings,
      "authorization_url",
    ),
    tokenUrl: fillUrlPlaceholders(test?.tokenUrl || o.tokenUrl || template.tokenUrl, template, settings, "token_url"),
    baseUrl: test?.baseUrl || o.baseUrl || template.baseUrl,
  };
}
