import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * LinkedIn's 3-legged OAuth (Nango's `linkedin`). Access tokens last 60 days; refresh tokens are issued
 * only to approved partners; PKCE is for native clients only, so none is sent:
 * https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow. Scopes come
 * with the products added to the app; the member ones below are open to any app
 * (https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2),
 * other products' scopes need LinkedIn's approval.
 */
export const linkedin = {
  name: "linkedin",
  displayName: "LinkedIn",
  authMode: "OAUTH2",
  docsUrl: "https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow",
  baseUrl: "https://api.linkedin.com",
  authorizationUrl: "https://www.linkedin.com/oauth/v2/authorization",
  tokenUrl: "https://www.linkedin.com/oauth/v2/accessToken",
  pkce: "refused",
  scopes: [
    { name: "openid", description: "Sign the member in with OpenID Connect.", sensitivity: "basic" },
    { name: "profile", description: "The member's name and photo.", sensitivity: "basic" },
    { name: "email", description: "The member's primary email address.", sensitivity: "basic" },
    { name: "w_member_social", description: "Post, comment and react on the member's behalf.", sensitivity: "basic" },
  ],
  defaultScopes: ["openid", "profile", "email"],
  // The account identity: GET /v2/userinfo's `sub` (OpenID Connect; the openid scope).
  connectionConfig: [{ key: "userId", from: "request", url: "/v2/userinfo", path: "sub" }],
  identity: {
    url: "/v2/userinfo",
    idPath: "sub",
    docsUrl: "https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2",
  },
  allowedOverrideHosts: ["api.linkedin.com"],
} satisfies ProviderDefinitionInput;
