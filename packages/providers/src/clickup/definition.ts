import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * ClickUp API v2 (Nango's `clickup`; base URL the host, so proxy paths are `/api/v2/...`). ClickUp has no
 * scopes (the user picks the Workspaces to authorize) and its tokens do not expire:
 * https://developer.clickup.com/docs/authentication.
 */
export const clickup = {
  name: "clickup",
  displayName: "ClickUp",
  authMode: "OAUTH2",
  docsUrl: "https://developer.clickup.com/docs/authentication",
  baseUrl: "https://api.clickup.com",
  authorizationUrl: "https://app.clickup.com/api",
  tokenUrl: "https://api.clickup.com/api/v2/oauth/token",
  scopes: [],
  defaultScopes: [],
  // The account identity: GET /api/v2/user (https://developer.clickup.com/reference/getauthorizeduser).
  connectionConfig: [{ key: "userId", from: "request", url: "/api/v2/user", path: "user.id" }],
  identity: {
    url: "/api/v2/user",
    idPath: "user.id",
    docsUrl: "https://developer.clickup.com/reference/getauthorizeduser",
  },
  allowedOverrideHosts: ["api.clickup.com"],
} satisfies ProviderDefinitionInput;
