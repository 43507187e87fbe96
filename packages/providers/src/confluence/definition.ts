import { ATLASSIAN_OAUTH, atlassianIdentity } from "../atlassian/atlassian-oauth.ts";
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
  // The authorization server, the API gateway and the cloud id: atlassian/atlassian-oauth.ts.
  ...ATLASSIAN_OAUTH,
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
  identity: atlassianIdentity("https://developer.atlassian.com/cloud/confluence/oauth-2-3lo-apps/"),
} satisfies ProviderDefinitionInput;
