import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const AUTH = "https://docs.stripe.com/api/authentication";

/**
 * Stripe with a secret or restricted API key. AUTH: requests to https://api.stripe.com authenticate
 * with the key, as a Basic user name or as `Authorization: Bearer <key>`.
 */
export const stripeApiKey = {
  name: "stripe-api-key",
  displayName: "Stripe (API key)",
  authMode: "API_KEY",
  docsUrl: AUTH,
  baseUrl: "https://api.stripe.com",
  apiKey: { in: "header", name: "authorization", prefix: "Bearer " },
  connectFields: [
    {
      key: "apiKey",
      label: "Secret key (sk_…) or restricted key (rk_…)",
      docsUrl: "https://docs.stripe.com/keys",
      secret: true,
    },
  ],
  identity: { url: "/v1/account", idPath: "id", docsUrl: "https://docs.stripe.com/api/accounts/retrieve" },
} satisfies ProviderDefinitionInput;
