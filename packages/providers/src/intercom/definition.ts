import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://developers.intercom.com/docs/build-an-integration/learn-more/authentication/setting-up-oauth";

/** Intercom (US-hosted workspaces); proxy paths are the REST API's ("/contacts"). */
export const intercom = {
  name: "intercom",
  displayName: "Intercom",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: users authorize at https://app.intercom.com/oauth; the code is exchanged at
  // https://api.intercom.io/auth/eagle/token; access tokens do not expire.
  authorizationUrl: "https://app.intercom.com/oauth",
  tokenUrl: "https://api.intercom.io/auth/eagle/token",
  baseUrl: "https://api.intercom.io",
  // OAUTH: the authorization request takes client_id, state and redirect_uri; permissions are set on the app.
  pkce: "refused",
  scopes: [],
  identity: {
    url: "/me",
    idPath: "id",
    docsUrl: "https://developers.intercom.com/docs/references/rest-api/api.intercom.io/admins/identifyadmin",
  },
} satisfies ProviderDefinitionInput;
