import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * monday.com's GraphQL API (Nango's `monday`; POST /v2). Access tokens do not expire and come without a
 * refresh token; the scopes requested must be ones the app declares:
 * https://developer.monday.com/apps/docs/oauth. monday classifies no scope as sensitive: every one is
 * "basic" here. The account is read with a GraphQL POST (`{ me { id } }`): the identity request's `body`.
 */
export const monday = {
  name: "monday",
  displayName: "monday.com",
  authMode: "OAUTH2",
  docsUrl: "https://developer.monday.com/apps/docs/oauth",
  baseUrl: "https://api.monday.com",
  authorizationUrl: "https://auth.monday.com/oauth2/authorize",
  tokenUrl: "https://auth.monday.com/oauth2/token",
  // The install prompt is shown when the app is not yet installed on the account (else authorization fails).
  authorizationParams: { force_install_if_needed: "true" },
  pkce: "refused",
  scopes: [
    { name: "me:read", description: "Read the user's profile information.", sensitivity: "basic" },
    { name: "account:read", description: "Read general information about the account.", sensitivity: "basic" },
    { name: "boards:read", description: "Read the user's board data.", sensitivity: "basic" },
    { name: "boards:write", description: "Modify the user's board data.", sensitivity: "basic" },
    { name: "docs:read", description: "Read the user's docs.", sensitivity: "basic" },
    { name: "docs:write", description: "Modify the user's docs.", sensitivity: "basic" },
    { name: "assets:read", description: "Read data from assets the user has access to.", sensitivity: "basic" },
    { name: "updates:read", description: "Read updates and replies the user can see.", sensitivity: "basic" },
    { name: "updates:write", description: "Post or edit updates for the user.", sensitivity: "basic" },
    { name: "users:read", description: "Read profile information of the account's users.", sensitivity: "basic" },
    { name: "workspaces:read", description: "Read the user's workspaces.", sensitivity: "basic" },
    { name: "webhooks:read", description: "Read the boards' webhooks.", sensitivity: "basic" },
    { name: "webhooks:write", description: "Create and delete webhooks.", sensitivity: "basic" },
  ],
  defaultScopes: ["me:read", "boards:read"],
  identity: {
    url: "/v2",
    body: '{"query":"query { me { id } }"}',
    idPath: "data.me.id",
    docsUrl: "https://developer.monday.com/api-reference/reference/me",
  },
  allowedOverrideHosts: ["api.monday.com"],
} satisfies ProviderDefinitionInput;
