import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://linear.app/developers/oauth-2-0-authentication";

/** Linear; its API is GraphQL at /graphql. */
export const linear = {
  name: "linear",
  displayName: "Linear",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: https://linear.app/oauth/authorize, tokens from https://api.linear.app/oauth/token; the API
  // at https://api.linear.app/graphql. Access tokens expire and come with a refresh token.
  authorizationUrl: "https://linear.app/oauth/authorize",
  tokenUrl: "https://api.linear.app/oauth/token",
  baseUrl: "https://api.linear.app",
  // OAUTH: "scope: Comma separated list of scopes".
  scopeSeparator: "comma",
  // OAUTH: Linear does not classify its scopes' sensitivity.
  scopes: [
    { name: "read", description: "Read access for the user's account (always present)." },
    { name: "write", description: "Write access for the user's account." },
    { name: "issues:create", description: "Create issues and their attachments." },
    { name: "comments:create", description: "Create issue comments." },
    { name: "timeSchedule:write", description: "Create and modify time schedules." },
    { name: "admin", description: "Full access to admin-level endpoints." },
  ],
  defaultScopes: ["read"],
  identity: {
    url: "/graphql",
    body: '{"query":"{ viewer { id } }"}',
    idPath: "data.viewer.id",
    docsUrl: "https://linear.app/developers/graphql",
  },
} satisfies ProviderDefinitionInput;
