import type { ProviderAdapter } from "../adapter.ts";
import { adapterFromDefinition } from "../definition/defined-provider.ts";
import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Twilio SendGrid's v3 API with an API key sent as a Bearer token (Nango's `sendgrid`):
 * https://www.twilio.com/docs/sendgrid/api-reference/how-to-use-the-sendgrid-v3-api/authentication.
 * Keys are made under Settings, API Keys (https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys).
 */
const definition: ProviderDefinitionInput = {
  name: "sendgrid",
  displayName: "SendGrid",
  authMode: "API_KEY",
  docsUrl: "https://www.twilio.com/docs/sendgrid/api-reference/how-to-use-the-sendgrid-v3-api/authentication",
  baseUrl: "https://api.sendgrid.com",
  apiKey: { in: "header", name: "authorization", prefix: "Bearer " },
  connectFields: [
    {
      key: "apiKey",
      label: "API key",
      docsUrl: "https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys",
      secret: true,
    },
  ],
  allowedOverrideHosts: ["api.sendgrid.com"],
};

export const sendgrid: ProviderAdapter = { ...adapterFromDefinition(definition), proxyPathExample: "v3/scopes" };
