import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://developer.xero.com/documentation/guides/oauth2/auth-flow";
// SCOPES: https://developer.xero.com/documentation/guides/oauth2/scopes

/**
 * Xero. OAUTH: calls to an organisation name it in the `xero-tenant-id` header, the tenantId from
 * GET https://api.xero.com/connections; the first one is stored as connection_config.tenant_id and the
 * caller sends the header through the proxy.
 */
export const xero = {
  name: "xero",
  displayName: "Xero",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: https://login.xero.com/identity/connect/authorize, tokens from https://identity.xero.com/connect/token
  // with the client id and secret in a Basic header; access tokens last 30 minutes, refresh tokens rotate.
  authorizationUrl: "https://login.xero.com/identity/connect/authorize",
  tokenUrl: "https://identity.xero.com/connect/token",
  baseUrl: "https://api.xero.com",
  clientAuthentication: "client_secret_basic",
  scopeSeparator: "space",
  // SCOPES: Xero does not classify its scopes' sensitivity.
  scopes: [
    { name: "offline_access", description: "Receive a refresh token." },
    { name: "openid", description: "An id_token (OpenID Connect)." },
    { name: "profile", description: "The user's name (OpenID Connect)." },
    { name: "email", description: "The user's email address (OpenID Connect)." },
    { name: "accounting.transactions", description: "View and manage business transactions." },
    { name: "accounting.transactions.read", description: "View business transactions." },
    { name: "accounting.contacts", description: "View and manage contacts." },
    { name: "accounting.contacts.read", description: "View contacts." },
    { name: "accounting.settings.read", description: "View the organisation's settings." },
    { name: "accounting.reports.read", description: "View reports." },
  ],
  defaultScopes: ["offline_access", "accounting.transactions.read", "accounting.contacts.read"],
  connectionConfig: [
    { key: "tenant_id", from: "request", url: "https://api.xero.com/connections", path: "0.tenantId" },
  ],
  identity: {
    url: "https://api.xero.com/connections",
    idPath: "0.tenantId",
    docsUrl: "https://developer.xero.com/documentation/guides/oauth2/tenants",
  },
} satisfies ProviderDefinitionInput;
