import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://docs.slack.dev/authentication/installing-with-oauth";
// SCOPES: https://docs.slack.dev/reference/scopes

/** Slack with a bot token: the workspace installs the app; `slack-user` acts as the installing user. */
export const slack = {
  name: "slack",
  displayName: "Slack",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: "https://slack.com/oauth/v2/authorize", exchanged at oauth.v2.access; Web API methods under slack.com/api.
  authorizationUrl: "https://slack.com/oauth/v2/authorize",
  tokenUrl: "https://slack.com/api/oauth.v2.access",
  baseUrl: "https://slack.com/api",
  // OAUTH: "scope: a comma-separated list of scopes".
  scopeSeparator: "comma",
  // OAUTH documents no PKCE for oauth.v2.access with a client secret.
  pkce: "refused",
  // OAUTH: the answer's top-level access_token is the bot token, token_type "bot"; it does not expire
  // unless token rotation is turned on for the app.
  tokenResponse: { tokenTypes: ["bot"] },
  // SCOPES: Slack does not classify its scopes' sensitivity.
  scopes: [
    { name: "channels:read", description: "View basic information about public channels in a workspace." },
    { name: "channels:history", description: "View messages and other content in public channels." },
    { name: "chat:write", description: "Send messages as the app." },
    { name: "users:read", description: "View people in a workspace." },
    { name: "users:read.email", description: "View email addresses of people in a workspace." },
    { name: "team:read", description: "View the name, email domain, and icon for workspaces the app is connected to." },
  ],
  defaultScopes: ["channels:read", "chat:write", "users:read"],
  // OAUTH: the answer names the workspace in team.id.
  connectionConfig: [{ key: "team_id", from: "token_response", path: "team.id" }],
  identity: { url: "/auth.test", idPath: "team_id", docsUrl: "https://docs.slack.dev/reference/methods/auth.test" },
  // PAGINATION: https://api.slack.com/apis/pagination (as Nango's providers.yaml, proxy.paginate)
  paginate: {
    type: "cursor",
    cursor_name_in_request: "cursor",
    cursor_path_in_response: "response_metadata.next_cursor",
    limit_name_in_request: "limit",
  },
} satisfies ProviderDefinitionInput;
