import type { ProviderAdapter } from "../adapter.ts";
import { adapterFromDefinition } from "../definition/defined-provider.ts";
import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * The OpenAI API with an API key sent as a Bearer token (Nango's `openai`):
 * https://platform.openai.com/docs/api-reference/authentication. Keys are made on the API keys page.
 */
const definition: ProviderDefinitionInput = {
  name: "openai",
  displayName: "OpenAI",
  authMode: "API_KEY",
  docsUrl: "https://platform.openai.com/docs/api-reference/authentication",
  baseUrl: "https://api.openai.com",
  apiKey: { in: "header", name: "authorization", prefix: "Bearer " },
  connectFields: [{ key: "apiKey", label: "API key", docsUrl: "https://platform.openai.com/api-keys", secret: true }],
  allowedOverrideHosts: ["api.openai.com"],
};

export const openai: ProviderAdapter = { ...adapterFromDefinition(definition), proxyPathExample: "v1/models" };
