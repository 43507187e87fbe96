import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://airtable.com/developers/web/api/oauth-reference";
// SCOPES: https://airtable.com/developers/web/api/scopes

/** Airtable; proxy paths start at the API's version ("/v0/meta/bases"). */
export const airtable = {
  name: "airtable",
  displayName: "Airtable",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: https://airtable.com/oauth2/v1/authorize with a required S256 code_challenge; tokens from
  // https://airtable.com/oauth2/v1/token, the client secret (when the integration has one) in a Basic
  // header; access tokens last 60 minutes, refresh tokens are single-use.
  authorizationUrl: "https://airtable.com/oauth2/v1/authorize",
  tokenUrl: "https://airtable.com/oauth2/v1/token",
  baseUrl: "https://api.airtable.com",
  clientAuthentication: "client_secret_basic",
  pkce: "required",
  scopeSeparator: "space",
  // SCOPES: Airtable does not classify its scopes' sensitivity.
  scopes: [
    { name: "data.records:read", description: "See the data in records." },
    { name: "data.records:write", description: "Create, edit and delete records." },
    { name: "data.recordComments:read", description: "See comments in records." },
    { name: "data.recordComments:write", description: "Create, edit and delete record comments." },
    { name: "schema.bases:read", description: "See the structure of a base, like table names or field types." },
    { name: "schema.bases:write", description: "Edit the structure of a base." },
    { name: "webhook:manage", description: "View, create and delete webhooks for a base." },
    { name: "user.email:read", description: "See the user's email address." },
  ],
  defaultScopes: ["data.records:read", "schema.bases:read"],
  identity: {
    url: "/v0/meta/whoami",
    idPath: "id",
    docsUrl: "https://airtable.com/developers/web/api/get-user-id-scopes",
  },
} satisfies ProviderDefinitionInput;
