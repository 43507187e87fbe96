import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { secretContexts } from "../secret-contexts.ts";
import type { ProviderAdapter } from "@junction/providers";
import type { IntegrationRecord, UpstreamOverridesRecord } from "../store/records.ts";
import { fillUrlPlaceholders } from "./url-placeholders.ts";

/** The OAuth client and upstream URLs an authorization or refresh talks to. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  authorizationUrl: string;
  tokenUrl: string;
  /**
   * Where refresh tokens are spent: the definition's `refreshUrl` when it names one (Figma's), else the token
   * URL; an operator's or test client's token URL override replaces both (it points at another server).
   */
  refreshUrl: string;
  /** May still hold a connection's placeholders (`{instance_url}`): see `connectionBaseUrl`. */
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
  connectionConfig: Readonly<Record<string, unknown>> = {},
): OAuthClient {
  const urls = effectiveUrls(ctx, integ, template, testCredentials, connectionConfig);
  if (testCredentials) {
    const test = ctx.oauth.testCredentials[integ.provider];
    if (!test) throw errors.testCredentialsUnavailable(integ.uniqueKey, integ.provider);
    return { clientId: test.clientId, clientSecret: test.clientSecret, ...urls, testCredentials: true };
  }
  if (!integ.clientId || !integ.clientSecretEnc) throw errors.integrationMissingCredentials(integ.uniqueKey);
  return {
    clientId: integ.clientId,
    clientSecret: ctx.encryptor.decrypt(
      integ.clientSecretEnc,
      secretContexts.integrationClientSecret(integ.environmentId, integ.uniqueKey),
    ),
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
  connectionConfig: Readonly<Record<string, unknown>> = {},
): UpstreamOverridesRecord {
  if (!testCredentials || !template) return integ.overrides;
  const urls = effectiveUrls(ctx, integ, template, true, connectionConfig);
  return { baseUrl: urls.baseUrl, authorizationUrl: urls.authorizationUrl, tokenUrl: urls.tokenUrl };
}

/**
 * The API base URL a connection's calls go to, its placeholders filled from the connection config (an
 * `{instance_url}` read from the token answer) and provider settings; throws `invalid_request` naming the field.
 */
export function connectionBaseUrl(
  integ: IntegrationRecord,
  template: ProviderAdapter | undefined,
  baseUrl: string,
  connectionConfig: Readonly<Record<string, unknown>>,
): string {
  return fillUrlPlaceholders(baseUrl, template, integ.providerSettings ?? {}, "base_url", connectionConfig);
}

/**
 * The URLs in force: test credentials', then the operator's overrides, then the template's; `{key}` in the
 * OAuth URLs filled from the provider settings and the connection config.
 */
function effectiveUrls(
  ctx: ConnectionServiceContext,
  integ: IntegrationRecord,
  template: ProviderAdapter,
  testCredentials: boolean,
  connectionConfig: Readonly<Record<string, unknown>> = {},
) {
  const test = testCredentials ? ctx.oauth.testCredentials[integ.provider] : undefined;
  const o = integ.overrides;
  const settings = integ.providerSettings ?? {};
  const tokenOverride = test?.tokenUrl || o.tokenUrl;
  const tokenUrl = fillUrlPlaceholders(
    tokenOverride || template.tokenUrl,
    template,
    settings,
    "token_url",
    connectionConfig,
  );
  return {
    authorizationUrl: fillUrlPlaceholders(
      test?.authorizationUrl || o.authorizationUrl || template.authorizationUrl,
      template,
      settings,
      "authorization_url",
      connectionConfig,
    ),
    tokenUrl,
    refreshUrl:
      tokenOverride || !template.refreshUrl
        ? tokenUrl
        : fillUrlPlaceholders(template.refreshUrl, template, settings, "refresh_url", connectionConfig),
    baseUrl: test?.baseUrl || o.baseUrl || template.baseUrl,
  };
}
