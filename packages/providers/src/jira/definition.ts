import { ATLASSIAN_OAUTH, atlassianIdentity } from "../atlassian/atlassian-oauth.ts";
import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/";
// SCOPES: https://developer.atlassian.com/cloud/jira/platform/scopes-for-oauth-2-3LO-and-forge-apps/
// CALLS: https://developer.atlassian.com/cloud/oauth/getting-started/making-calls-to-api/

/**
 * Jira Cloud through OAuth 2.0 (3LO). Calls go through api.atlassian.com with the site's cloud id in the
 * path ("/ex/jira/{cloudId}/rest/api/3/myself", as with Nango); the first accessible site's id is stored
 * as connection_config.cloudId.
 */
export const jira = {
  name: "jira",
  displayName: "Jira",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // The authorization server, the API gateway and the cloud id: atlassian/atlassian-oauth.ts.
  ...ATLASSIAN_OAUTH,
  // SCOPES: Atlassian does not classify its scopes' sensitivity.
  scopes: [
    { name: "read:jira-work", description: "Read project and issue data, search issues and attachments." },
    { name: "write:jira-work", description: "Create and edit issues, post comments, create worklogs." },
    { name: "read:jira-user", description: "View user information (usernames, email addresses, avatars)." },
    { name: "manage:jira-project", description: "Create and edit project settings and components." },
    { name: "manage:jira-configuration", description: "Configure Jira settings that require the admin role." },
    { name: "manage:jira-webhook", description: "Fetch, register, refresh and delete dynamically declared webhooks." },
    { name: "read:me", description: "View the user's profile (GET api.atlassian.com/me)." },
    { name: "offline_access", description: "Receive a refresh token." },
  ],
  defaultScopes: ["read:jira-work", "read:jira-user", "read:me", "offline_access"],
  identity: atlassianIdentity(
    "https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/#how-do-i-retrieve-the-public-profile-of-the-authenticated-user-",
  ),
  // PAGINATION: https://developer.atlassian.com/cloud/jira/platform/rest/v3/intro/#pagination (as Nango's providers.yaml, proxy.paginate)
  paginate: {
    type: "link",
    link_rel_in_response_header: "next",
    link_path_in_response_body: "_links.next",
    response_path: "results",
    limit_name_in_request: "limit",
  },
} satisfies ProviderDefinitionInput;
