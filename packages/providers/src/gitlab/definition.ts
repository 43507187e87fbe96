import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://docs.gitlab.com/api/oauth2/";
// SCOPES: https://docs.gitlab.com/integration/oauth_provider/#view-all-authorized-applications

/** GitLab.com; proxy paths start at the API's prefix ("/api/v4/projects"), as Nango's do. */
export const gitlab = {
  name: "gitlab",
  displayName: "GitLab",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: /oauth/authorize and /oauth/token on gitlab.com, PKCE (S256) supported; access tokens expire
  // after two hours and come with a refresh token.
  authorizationUrl: "https://gitlab.com/oauth/authorize",
  tokenUrl: "https://gitlab.com/oauth/token",
  baseUrl: "https://gitlab.com",
  scopeSeparator: "space",
  pkce: "optional",
  // SCOPES: GitLab does not classify its scopes' sensitivity.
  scopes: [
    { name: "api", description: "Read-write access to the API, including all groups and projects." },
    { name: "read_api", description: "Read access to the API, including all groups and projects." },
    { name: "read_user", description: "Read the authenticated user's profile." },
    { name: "read_repository", description: "Read access to repositories through Git over HTTP." },
    { name: "write_repository", description: "Read-write access to repositories through Git over HTTP." },
    { name: "openid", description: "Authenticate with OpenID Connect." },
    { name: "email", description: "Read the user's primary email address (OpenID Connect)." },
  ],
  defaultScopes: ["read_user"],
  identity: {
    url: "/api/v4/user",
    idPath: "id",
    docsUrl: "https://docs.gitlab.com/api/users/#get-the-current-user",
  },
} satisfies ProviderDefinitionInput;
