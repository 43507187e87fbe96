import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Figma's REST API with an OAuth app (Nango's `figma`). The token endpoint takes the client's id and secret
 * in an HTTP Basic header; scopes are comma-separated and granular (`files:read` is deprecated):
 * https://developers.figma.com/docs/rest-api/authentication/, https://developers.figma.com/docs/rest-api/scopes/.
 * Figma classifies no scope as sensitive: every one is "basic" here. Figma spends refresh tokens at a
 * separate endpoint, POST /v1/oauth/refresh (`refreshUrl`), which answers a new access token and its
 * expiry but no new refresh token: the connection keeps the one it has.
 */
export const figma = {
  name: "figma",
  displayName: "Figma",
  authMode: "OAUTH2",
  docsUrl: "https://developers.figma.com/docs/rest-api/authentication/",
  baseUrl: "https://api.figma.com",
  authorizationUrl: "https://www.figma.com/oauth",
  tokenUrl: "https://api.figma.com/v1/oauth/token",
  refreshUrl: "https://api.figma.com/v1/oauth/refresh",
  clientAuthentication: "client_secret_basic",
  scopeSeparator: "comma",
  // Figma's OAuth documents no PKCE for server-side apps; none is sent.
  pkce: "refused",
  scopes: [
    { name: "current_user:read", description: "Read your name, email and profile image.", sensitivity: "basic" },
    {
      name: "file_content:read",
      description: "Read the contents of files (nodes, editor type).",
      sensitivity: "basic",
    },
    { name: "file_metadata:read", description: "Read metadata of files.", sensitivity: "basic" },
    { name: "file_versions:read", description: "Read the version history of files.", sensitivity: "basic" },
    { name: "file_comments:read", description: "Read the comments of files.", sensitivity: "basic" },
    {
      name: "file_comments:write",
      description: "Post and delete comments and reactions in files.",
      sensitivity: "basic",
    },
    { name: "file_dev_resources:read", description: "Read dev resources in files.", sensitivity: "basic" },
    { name: "file_dev_resources:write", description: "Write dev resources to files.", sensitivity: "basic" },
    { name: "file_variables:read", description: "Read variables in files (Enterprise plan).", sensitivity: "basic" },
    {
      name: "file_variables:write",
      description: "Write variables and collections in files (Enterprise plan).",
      sensitivity: "basic",
    },
    { name: "projects:read", description: "List the projects and files in projects.", sensitivity: "basic" },
    { name: "webhooks:read", description: "Read webhook metadata.", sensitivity: "basic" },
    { name: "webhooks:write", description: "Create and manage webhooks.", sensitivity: "basic" },
  ],
  defaultScopes: ["current_user:read", "file_content:read"],
  // The account identity: GET /v1/me (current_user:read); `id` is the user's "unique stable id".
  connectionConfig: [{ key: "userId", from: "request", url: "/v1/me", path: "id" }],
  identity: { url: "/v1/me", idPath: "id", docsUrl: "https://developers.figma.com/docs/rest-api/users-types" },
  allowedOverrideHosts: ["api.figma.com"],
} satisfies ProviderDefinitionInput;
