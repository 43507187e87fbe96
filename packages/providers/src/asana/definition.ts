import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://developers.asana.com/docs/oauth";
// SCOPES: https://developers.asana.com/docs/oauth-scopes

/** Asana; proxy paths start at the API's prefix ("/api/1.0/users/me"), as Nango's do. */
export const asana = {
  name: "asana",
  displayName: "Asana",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: https://app.asana.com/-/oauth_authorize and https://app.asana.com/-/oauth_token, PKCE (S256)
  // supported; access tokens expire after an hour and come with a refresh token.
  authorizationUrl: "https://app.asana.com/-/oauth_authorize",
  tokenUrl: "https://app.asana.com/-/oauth_token",
  baseUrl: "https://app.asana.com",
  scopeSeparator: "space",
  // SCOPES: Asana does not classify its scopes' sensitivity.
  scopes: [
    { name: "default", description: "Full access to the API as the user." },
    { name: "openid", description: "An id_token (OpenID Connect)." },
    { name: "email", description: "The user's email address in the id_token." },
    { name: "profile", description: "The user's name and photo in the id_token." },
    { name: "tasks:read", description: "Read tasks." },
    { name: "tasks:write", description: "Create and update tasks." },
    { name: "projects:read", description: "Read projects." },
    { name: "users:read", description: "Read users." },
    { name: "workspaces:read", description: "Read workspaces." },
  ],
  defaultScopes: ["default"],
  identity: {
    url: "/api/1.0/users/me",
    idPath: "data.gid",
    docsUrl: "https://developers.asana.com/reference/getuser",
  },
  // PAGINATION: https://developers.asana.com/docs/pagination (as Nango's providers.yaml, proxy.paginate)
  paginate: {
    type: "cursor",
    cursor_name_in_request: "offset",
    cursor_path_in_response: "next_page.offset",
    response_path: "data",
    limit_name_in_request: "limit",
  },
} satisfies ProviderDefinitionInput;
