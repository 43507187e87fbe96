import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Atlassian's OAuth 2.0 (3LO) authorization server and API gateway, shared by Jira and Confluence
 * (https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/): auth.atlassian.com with
 * audience=api.atlassian.com and prompt=consent; refresh tokens rotate and need offline_access; calls go
 * through api.atlassian.com with the site's cloud id in the path
 * (https://developer.atlassian.com/cloud/oauth/getting-started/making-calls-to-api/).
 */
export const ATLASSIAN_OAUTH = {
  authorizationUrl: "https://auth.atlassian.com/authorize",
  tokenUrl: "https://auth.atlassian.com/oauth/token",
  authorizationParams: { audience: "api.atlassian.com", prompt: "consent" },
  baseUrl: "https://api.atlassian.com",
  scopeSeparator: "space",
  // GET /oauth/token/accessible-resources lists the sites the token may reach; the first one's "id" is
  // stored as connection_config.cloudId.
  connectionConfig: [
    {
      key: "cloudId",
      from: "request",
      url: "https://api.atlassian.com/oauth/token/accessible-resources",
      path: "0.id",
    },
  ],
} satisfies Partial<ProviderDefinitionInput>;

/** The account: GET api.atlassian.com/me (its "account_id"), with the product's page on it. */
export const atlassianIdentity = (docsUrl: string): ProviderDefinitionInput["identity"] => ({
  url: "https://api.atlassian.com/me",
  idPath: "account_id",
  docsUrl,
});
