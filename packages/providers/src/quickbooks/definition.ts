import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://developer.intuit.com/app/developer/qbo/docs/develop/authentication-and-authorization/oauth-2.0";

/**
 * QuickBooks Online. OAUTH: the callback names the company in its realmId parameter, stored as
 * connection_config.realmId; calls go to /v3/company/{realmId}/... under the API's address.
 */
export const quickbooks = {
  name: "quickbooks",
  displayName: "QuickBooks",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: https://appcenter.intuit.com/connect/oauth2, tokens from
  // https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer with a Basic header; access tokens last an
  // hour, and a refresh may answer with a new refresh token.
  authorizationUrl: "https://appcenter.intuit.com/connect/oauth2",
  tokenUrl: "https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer",
  baseUrl: "https://quickbooks.api.intuit.com",
  clientAuthentication: "client_secret_basic",
  scopeSeparator: "space",
  // OAUTH: Intuit does not classify its scopes' sensitivity.
  scopes: [
    { name: "com.intuit.quickbooks.accounting", description: "QuickBooks Online accounting data." },
    { name: "com.intuit.quickbooks.payment", description: "QuickBooks Payments." },
    { name: "openid", description: "OpenID Connect sign-in." },
    { name: "profile", description: "The user's name." },
    { name: "email", description: "The user's email address." },
  ],
  defaultScopes: ["com.intuit.quickbooks.accounting"],
  connectionConfig: [{ key: "realmId", from: "callback", param: "realmId" }],
  identity: {
    url: "/v3/company/{realmId}/companyinfo/{realmId}",
    idPath: "CompanyInfo.Id",
    docsUrl: "https://developer.intuit.com/app/developer/qbo/docs/api/accounting/all-entities/companyinfo",
  },
} satisfies ProviderDefinitionInput;
