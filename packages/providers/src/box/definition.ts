import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Box (Nango's `box`; base URL without `/2.0`, as Nango's). Access tokens last an hour; a refresh token is
 * single use and answered anew on each refresh: https://developer.box.com/guides/authentication/tokens/refresh/.
 * Scopes are set on the app in the developer console; `scope` may request a subset:
 * https://developer.box.com/guides/api-calls/permissions-and-errors/scopes/. Box classifies no scope as
 * sensitive: every one is "basic" here; the admin-only ones say so.
 */
export const box = {
  name: "box",
  displayName: "Box",
  authMode: "OAUTH2",
  docsUrl: "https://developer.box.com/guides/authentication/oauth2/without-sdk/",
  baseUrl: "https://api.box.com",
  authorizationUrl: "https://account.box.com/api/oauth2/authorize",
  tokenUrl: "https://api.box.com/oauth2/token",
  scopes: [
    { name: "root_readonly", description: "Read all files and folders stored in Box.", sensitivity: "basic" },
    {
      name: "root_readwrite",
      description: "Read and write all files and folders stored in Box.",
      sensitivity: "basic",
    },
    { name: "manage_webhook", description: "Manage webhooks.", sensitivity: "basic" },
    { name: "manage_groups", description: "Manage the enterprise's groups (admins only).", sensitivity: "basic" },
    {
      name: "manage_managed_users",
      description: "Manage the enterprise's managed users (admins only).",
      sensitivity: "basic",
    },
    { name: "manage_app_users", description: "Manage the app's users.", sensitivity: "basic" },
    { name: "sign_requests.readwrite", description: "Create and manage Box Sign requests.", sensitivity: "basic" },
    { name: "ai.readwrite", description: "Use Box AI.", sensitivity: "basic" },
  ],
  defaultScopes: ["root_readonly"],
  // The account identity: GET /2.0/users/me (https://developer.box.com/reference/get-users-me/).
  connectionConfig: [{ key: "userId", from: "request", url: "/2.0/users/me", path: "id" }],
  identity: { url: "/2.0/users/me", idPath: "id", docsUrl: "https://developer.box.com/reference/get-users-me/" },
  allowedOverrideHosts: ["api.box.com", "upload.box.com"],
} satisfies ProviderDefinitionInput;
