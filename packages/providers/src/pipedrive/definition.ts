import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://pipedrive.readme.io/docs/marketplace-oauth-authorization";
// SCOPES: https://pipedrive.readme.io/docs/marketplace-scopes-and-permissions-explanations

/** Pipedrive; calls go to the company's api_domain from the token answer ("/v1/deals" under {api_domain}/api). */
export const pipedrive = {
  name: "pipedrive",
  displayName: "Pipedrive",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: https://oauth.pipedrive.com/oauth/authorize and /oauth/token, the client id and secret in a
  // Basic header; the answer's api_domain is the company's API address.
  authorizationUrl: "https://oauth.pipedrive.com/oauth/authorize",
  tokenUrl: "https://oauth.pipedrive.com/oauth/token",
  baseUrl: "{api_domain}/api",
  clientAuthentication: "client_secret_basic",
  // OAUTH: the authorization request takes client_id, redirect_uri and state only.
  pkce: "refused",
  // SCOPES: scopes are chosen on the app in the Developer Hub, not in the authorization request;
  // Pipedrive does not classify them. Listed for documentation; none is sent by default.
  scopes: [
    { name: "base", description: "Read settings of the authorized user and currencies (always present)." },
    { name: "deals:read", description: "Read deals, their participants and followers." },
    { name: "deals:full", description: "Create, read, update and delete deals." },
    { name: "contacts:read", description: "Read people and organizations." },
    { name: "contacts:full", description: "Create, read, update and delete people and organizations." },
    { name: "activities:read", description: "Read activities." },
    { name: "users:read", description: "Read users of the company." },
  ],
  connectionConfig: [{ key: "api_domain", from: "token_response", path: "api_domain" }],
  identity: {
    url: "/v1/users/me",
    idPath: "data.id",
    docsUrl: "https://developers.pipedrive.com/docs/api/v1/Users#getCurrentUser",
  },
  // PAGINATION: https://pipedrive.readme.io/docs/core-api-concepts-pagination (as Nango's providers.yaml, proxy.paginate)
  paginate: {
    type: "offset",
    offset_name_in_request: "start",
    response_path: "data",
    limit_name_in_request: "limit",
  },
} satisfies ProviderDefinitionInput;
