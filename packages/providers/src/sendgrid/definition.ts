import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Twilio SendGrid's v3 API with an API key sent as a Bearer token (Nango's `sendgrid`):
 * https://www.twilio.com/docs/sendgrid/api-reference/how-to-use-the-sendgrid-v3-api/authentication.
 * Keys are made under Settings, API Keys (https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys).
 */
export const sendgrid = {
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
  // Junction sends no identity request itself (connection-config requests run only after an OAuth code
  // exchange): for an API key connection it is documentation (docs/providers.md) of who the credentials are.
  // The account identity: GET /v3/user/username answers the username and the account's user id (`user_id`
  // in the JSON; the reference page shows its fields camel-cased, `userId`).
  identity: {
    url: "/v3/user/username",
    idPath: "user_id",
    docsUrl: "https://www.twilio.com/docs/sendgrid/api-reference/users-api/retrieve-your-username",
  },
  allowedOverrideHosts: ["api.sendgrid.com"],
} satisfies ProviderDefinitionInput;
