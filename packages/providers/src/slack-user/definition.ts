import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://docs.slack.dev/authentication/installing-with-oauth";

/** Slack acting as the installing user: the user token Slack nests under `authed_user`. */
export const slackUser = {
  name: "slack-user",
  displayName: "Slack (user token)",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  authorizationUrl: "https://slack.com/oauth/v2/authorize",
  tokenUrl: "https://slack.com/api/oauth.v2.access",
  baseUrl: "https://slack.com/api",
  // OAUTH: user scopes are asked for in "user_scope", comma-separated.
  scopeParameter: "user_scope",
  scopeSeparator: "comma",
  pkce: "refused",
  // OAUTH: "authed_user": { "id", "scope", "access_token", "token_type": "user" }.
  tokenResponse: { root: "authed_user", tokenTypes: ["user"] },
  scopes: [
    { name: "channels:read", description: "View basic information about public channels in a workspace." },
    { name: "channels:history", description: "View messages and other content in public channels." },
    { name: "chat:write", description: "Send messages on the user's behalf." },
    { name: "search:read", description: "Search a workspace's content." },
    { name: "users:read", description: "View people in a workspace." },
    { name: "users:read.email", description: "View email addresses of people in a workspace." },
  ],
  defaultScopes: ["users:read"],
  connectionConfig: [
    { key: "team_id", from: "token_response", path: "team.id" },
    { key: "user_id", from: "token_response", path: "authed_user.id" },
  ],
  identity: { url: "/auth.test", idPath: "user_id", docsUrl: "https://docs.slack.dev/reference/methods/auth.test" },
} satisfies ProviderDefinitionInput;
