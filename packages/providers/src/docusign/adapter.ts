import type { ProviderAdapter } from "../adapter.ts";
import { adapterFromDefinition } from "../definition/defined-provider.ts";
import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * DocuSign eSignature with Authorization Code Grant (Nango's `docusign`). The authentication service is
 * account-d.docusign.com for the developer environment and account.docusign.com in production (the
 * `account_server` provider setting); the token endpoint takes the integration key and secret in an HTTP
 * Basic header: https://developers.docusign.com/platform/auth/authcode/authcode-get-token/. Each account's
 * API host is its `base_uri` from the userinfo answer's `accounts` list
 * (https://developers.docusign.com/platform/auth/reference/user-info/); the definition cannot pick an
 * element of a list, so the connection gives it (`connection_config.base_uri`). Proxy paths start at
 * `/restapi`, as Nango's. DocuSign classifies no scope as sensitive: every one is "basic" here.
 */
const definition: ProviderDefinitionInput = {
  name: "docusign",
  displayName: "DocuSign",
  authMode: "OAUTH2",
  docsUrl: "https://developers.docusign.com/platform/auth/authcode/",
  baseUrl: "{base_uri}",
  authorizationUrl: "https://{account_server}/oauth/auth",
  tokenUrl: "https://{account_server}/oauth/token",
  clientAuthentication: "client_secret_basic",
  scopes: [
    { name: "signature", description: "Create and send envelopes, and sign.", sensitivity: "basic" },
    { name: "extended", description: "Extend the refresh token's lifetime on each use.", sensitivity: "basic" },
    { name: "openid", description: "Sign the user in with OpenID Connect.", sensitivity: "basic" },
  ],
  defaultScopes: ["signature", "extended"],
  connectFields: [
    {
      key: "base_uri",
      label: "Account base URI (e.g. https://na3.docusign.net)",
      docsUrl: "https://developers.docusign.com/platform/auth/reference/user-info/",
    },
  ],
  // The account identity: the userinfo answer's `sub` (the user's id).
  connectionConfig: [{ key: "userId", from: "request", url: "https://{account_server}/oauth/userinfo", path: "sub" }],
  identity: {
    url: "https://{account_server}/oauth/userinfo",
    idPath: "sub",
    docsUrl: "https://developers.docusign.com/platform/auth/reference/user-info/",
  },
  allowedOverrideHosts: [],
};

export const docusign: ProviderAdapter = {
  ...adapterFromDefinition(definition),
  proxyPathExample: "restapi/v2.1/accounts/ACCOUNT_ID/envelopes",
  integrationSettings: [
    {
      key: "account_server",
      label: "Account server",
      description:
        "DocuSign's authentication service: account.docusign.com in production, account-d.docusign.com for the developer environment.",
      defaultValue: "account.docusign.com",
      docsUrl: "https://developers.docusign.com/platform/auth/reference/user-info/",
    },
  ],
};
