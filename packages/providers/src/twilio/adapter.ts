import type { ProviderAdapter } from "../adapter.ts";
import { adapterFromDefinition } from "../definition/defined-provider.ts";
import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Twilio's REST API with HTTP Basic: the Account SID as user name and the Auth Token as password (Nango's
 * `twilio`): https://www.twilio.com/docs/usage/requests-to-twilio. Both are on the Account Info panel of the
 * Console's dashboard.
 */
const definition: ProviderDefinitionInput = {
  name: "twilio",
  displayName: "Twilio",
  authMode: "BASIC",
  docsUrl: "https://www.twilio.com/docs/usage/requests-to-twilio",
  baseUrl: "https://api.twilio.com",
  connectFields: [
    { key: "username", label: "Account SID", docsUrl: "https://console.twilio.com/" },
    { key: "password", label: "Auth Token", docsUrl: "https://console.twilio.com/", secret: true },
  ],
  allowedOverrideHosts: ["api.twilio.com"],
};

export const twilio: ProviderAdapter = {
  ...adapterFromDefinition(definition),
  proxyPathExample: "2010-04-01/Accounts.json",
};
