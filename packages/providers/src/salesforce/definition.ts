import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm&type=5";
// SCOPES: https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_tokens_scopes.htm&type=5

/** Salesforce; calls go to the org's own instance, read from the token answer's instance_url. */
export const salesforce = {
  name: "salesforce",
  displayName: "Salesforce",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: https://login.salesforce.com/services/oauth2/authorize and .../token; PKCE supported (required
  // when the connected app asks for it); the answer holds instance_url and no expires_in.
  authorizationUrl: "https://login.salesforce.com/services/oauth2/authorize",
  tokenUrl: "https://login.salesforce.com/services/oauth2/token",
  baseUrl: "{instance_url}",
  scopeSeparator: "space",
  // SCOPES: Salesforce does not classify its scopes' sensitivity.
  scopes: [
    { name: "api", description: "Access the user's account through the APIs." },
    { name: "refresh_token", description: "Receive a refresh token (same as offline_access)." },
    { name: "id", description: "Access the identity URL service." },
    { name: "openid", description: "Receive an OpenID Connect id_token." },
    { name: "email", description: "The user's email address (identity and userinfo)." },
    { name: "profile", description: "The user's profile (identity and userinfo)." },
    { name: "chatter_api", description: "Access the Connect REST API." },
    { name: "full", description: "All data the user can reach." },
  ],
  defaultScopes: ["api", "refresh_token"],
  connectionConfig: [{ key: "instance_url", from: "token_response", path: "instance_url" }],
  identity: {
    url: "/services/oauth2/userinfo",
    idPath: "user_id",
    docsUrl: "https://help.salesforce.com/s/articleView?id=sf.remoteaccess_using_userinfo_endpoint.htm&type=5",
  },
} satisfies ProviderDefinitionInput;
