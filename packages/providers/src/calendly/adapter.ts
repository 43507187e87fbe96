import type { ProviderAdapter } from "../adapter.ts";
import { adapterFromDefinition } from "../definition/defined-provider.ts";
import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Calendly API v2 (Nango's `calendly`). Web clients authenticate to the token endpoint with HTTP Basic;
 * access tokens last two hours, refresh tokens until used; the token answer names the authorizing user
 * (`owner`) and organization as URIs:
 * https://developer.calendly.com/api-docs/calendly-o-auth/o-auth/post-oauth-refresh-token.
 */
const definition: ProviderDefinitionInput = {
  name: "calendly",
  displayName: "Calendly",
  authMode: "OAUTH2",
  docsUrl: "https://developer.calendly.com/how-to-access-calendly-data-on-behalf-of-authenticated-users",
  baseUrl: "https://api.calendly.com",
  authorizationUrl: "https://auth.calendly.com/oauth/authorize",
  tokenUrl: "https://auth.calendly.com/oauth/token",
  clientAuthentication: "client_secret_basic",
  // Calendly documents no scope list for OAuth apps: an app gets what its user can see.
  scopes: [],
  defaultScopes: [],
  // The account identity is in the token answer itself (GET /users/me answers the same user).
  connectionConfig: [
    { key: "owner", from: "token_response", path: "owner" },
    { key: "organization", from: "token_response", path: "organization" },
  ],
  allowedOverrideHosts: ["api.calendly.com"],
};

export const calendly: ProviderAdapter = { ...adapterFromDefinition(definition), proxyPathExample: "users/me" };
