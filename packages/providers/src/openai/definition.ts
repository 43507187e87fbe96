import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * The OpenAI API with an API key sent as a Bearer token (Nango's `openai`):
 * https://platform.openai.com/docs/api-reference/authentication. Keys are made on the API keys page.
 */
export const openai = {
  name: "openai",
  displayName: "OpenAI",
  authMode: "API_KEY",
  docsUrl: "https://platform.openai.com/docs/api-reference/authentication",
  baseUrl: "https://api.openai.com",
  apiKey: { in: "header", name: "authorization", prefix: "Bearer " },
  connectFields: [{ key: "apiKey", label: "API key", docsUrl: "https://platform.openai.com/api-keys", secret: true }],
  // Junction sends no identity request itself (connection-config requests run only after an OAuth code
  // exchange): for an API key connection it is documentation (docs/providers.md) of who the credentials are.
  // The account identity: GET /v1/me answers the user the key belongs to (`id`) and its organizations.
  identity: {
    url: "/v1/me",
    idPath: "id",
    docsUrl:
      "https://help.openai.com/en/articles/9132009-how-can-i-view-the-users-or-organizations-associated-with-an-api-key",
  },
  allowedOverrideHosts: ["api.openai.com"],
} satisfies ProviderDefinitionInput;
