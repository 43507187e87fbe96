import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps";
// SCOPES: https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps

/** GitHub through an OAuth app, acting as the user; proxy paths are the REST API's ("/user/repos"). */
export const github = {
  name: "github",
  displayName: "GitHub",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: GET github.com/login/oauth/authorize, POST github.com/login/oauth/access_token (JSON with
  // Accept: application/json); the REST API at api.github.com. Tokens of OAuth apps do not expire.
  authorizationUrl: "https://github.com/login/oauth/authorize",
  tokenUrl: "https://github.com/login/oauth/access_token",
  baseUrl: "https://api.github.com",
  // OAUTH: "scope: A space-delimited list of scopes"; PKCE with S256 is supported and recommended.
  scopeSeparator: "space",
  pkce: "optional",
  // SCOPES: GitHub does not classify its scopes' sensitivity.
  scopes: [
    { name: "repo", description: "Full access to public and private repositories." },
    { name: "public_repo", description: "Read and write access to public repositories only." },
    { name: "read:user", description: "Read the user's profile data." },
    { name: "user:email", description: "Read the user's email addresses." },
    { name: "read:org", description: "Read organization membership, projects and team membership." },
    { name: "workflow", description: "Add and update GitHub Actions workflow files." },
    { name: "gist", description: "Write access to gists." },
    { name: "notifications", description: "Read and mark the user's notifications." },
  ],
  defaultScopes: ["read:user", "user:email"],
  identity: {
    url: "/user",
    idPath: "id",
    docsUrl: "https://docs.github.com/en/rest/users/users#get-the-authenticated-user",
  },
  // PAGINATION: https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api (as Nango's providers.yaml, proxy.paginate)
  paginate: {
    type: "link",
    link_rel_in_response_header: "next",
    limit_name_in_request: "per_page",
  },
} satisfies ProviderDefinitionInput;
