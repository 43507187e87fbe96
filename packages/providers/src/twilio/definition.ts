import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Twilio's REST API with HTTP Basic: the Account SID as user name and the Auth Token as password (Nango's
 * `twilio`): https://www.twilio.com/docs/usage/requests-to-twilio. Both are on the Account Info panel of the
 * Console's dashboard.
 */
export const twilio = {
  name: "twilio",
  displayName: "Twilio",
  authMode: "BASIC",
  docsUrl: "https://www.twilio.com/docs/usage/requests-to-twilio",
  baseUrl: "https://api.twilio.com",
  connectFields: [
    { key: "username", label: "Account SID", docsUrl: "https://console.twilio.com/" },
    { key: "password", label: "Auth Token", docsUrl: "https://console.twilio.com/", secret: true },
  ],
  // Junction sends no identity request itself (connection-config requests run only after an OAuth code
  // exchange): for an HTTP Basic connection it is documentation (docs/providers.md) of who the credentials are.
  // The account identity: the Account resource of the Account SID (the user name), its `sid`.
  identity: {
    url: "/2010-04-01/Accounts/{username}.json",
    idPath: "sid",
    docsUrl: "https://www.twilio.com/docs/iam/api/account#fetch-an-account-resource",
  },
  allowedOverrideHosts: ["api.twilio.com"],
} satisfies ProviderDefinitionInput;
