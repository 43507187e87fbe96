import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://developer.atlassian.com/cloud/confluence/oauth-2-3lo-apps/";
// SCOPES: https://developer.atlassian.com/cloud/confluence/scopes-for-oauth-2-3LO-and-forge-apps/
// CALLS: https://developer.atlassian.com/cloud/oauth/getting-started/making-calls-to-api/

/**
 * Confluence Cloud through OAuth 2.0 (3LO): the same authorization server as Jira; calls go through
 * api.atlassian.com with the site's cloud id in the path ("/ex/confluence/{cloudId}/wiki/api/v2/spaces").
 */
export const confluence = {
  name: "confluence",
  displayName: "Confluence",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: auth.atlassian.com/authorize with audience=api.atlassian.com and prompt=consent; rotating refresh tokens.
  authorizationUrl: "https://auth.atlassian.com/authorize",
  tokenUrl: "https://auth.atlassian.com/oauth/token",
  authorizationParams: { audience: "api.atlassian.com", prompt: "consent" },
  baseUrl: "https://api.atlassian.com",
  scopeSeparator: "space",
  // SCOPES: Atlassian does not classify its scopes' sensitivity.
  scopes: [
    { name: "read:confluence-content.all", description: "Read all content, including content body." },
    { name: "read:confluence-content.summary", description: "Read a summary of the content." },
    { name: "read:confluence-space.summary", description: "Read a summary of space information." },
    { name: "write:confluence-content", description: "Create and update pages, blogposts and comments." },
    { name: "search:confluence", description: "Search Confluence." },
    { name: "read:confluence-user", description: "View user information." },
    { name: "read:me", description: "View the user's profile (GET api.atlassian.com/me)." },
    { name: "offline_access", description: "Receive a refresh token." },
  ],
  defaultScopes: ["read:confluence-content.all", "read:confluence-space.summary", "read:me", "offline_access"],
  // CALLS: the accessible resources' "id" is the site's cloud id.
  connectionConfig: [
    {
      key: "cloudId",
      from: "request",
      url: "https://api.atlassian.com/oauth/token/accessible-resources",
      path: "0.id",
    },
  ],
  identity: {
    url: "https://api.atlassian.com/me",
    idPath: "account_id",
    docsUrl: "https://developer.atlassian.com/cloud/confluence/oauth-2-3lo-apps/",
  },
} satisfies ProviderDefinitionInput;
