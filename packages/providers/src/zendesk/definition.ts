import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH =
  "https://developer.zendesk.com/documentation/ticketing/working-with-oauth/using-oauth-authentication-with-your-application/";
// SCOPES: https://developer.zendesk.com/api-reference/ticketing/oauth/oauth_tokens/#scopes

/** Zendesk Support; every URL is on the account's own subdomain, asked on the connect page. */
export const zendesk = {
  name: "zendesk",
  displayName: "Zendesk",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: https://{subdomain}.zendesk.com/oauth/authorizations/new and /oauth/tokens; PKCE supported.
  authorizationUrl: "https://{subdomain}.zendesk.com/oauth/authorizations/new",
  tokenUrl: "https://{subdomain}.zendesk.com/oauth/tokens",
  baseUrl: "https://{subdomain}.zendesk.com",
  scopeSeparator: "space",
  // SCOPES: Zendesk does not classify its scopes' sensitivity.
  scopes: [
    { name: "read", description: "Read access to all resources (GET endpoints)." },
    { name: "write", description: "Write access to all resources." },
    { name: "tickets:read", description: "Read tickets." },
    { name: "tickets:write", description: "Create and update tickets." },
    { name: "users:read", description: "Read users." },
    { name: "users:write", description: "Create and update users." },
    { name: "hc:read", description: "Read Help Center content." },
    { name: "impersonate", description: "Make requests on behalf of end users (admins only)." },
  ],
  defaultScopes: ["read"],
  connectFields: [
    {
      key: "subdomain",
      label: "Zendesk subdomain (the name before .zendesk.com)",
      docsUrl: "https://support.zendesk.com/hc/en-us/articles/4409381383578",
    },
  ],
  identity: {
    url: "/api/v2/users/me",
    idPath: "user.id",
    docsUrl: "https://developer.zendesk.com/api-reference/ticketing/users/users/#show-self",
  },
  // PAGINATION: https://developer.zendesk.com/api-reference/introduction/pagination/ (as Nango's providers.yaml, proxy.paginate)
  paginate: {
    type: "link",
    link_path_in_response_body: "next_page",
    limit_name_in_request: "per_page",
  },
} satisfies ProviderDefinitionInput;
