import type { ProviderAdapter } from "../adapter.ts";
import { adapterFromDefinition } from "../definition/defined-provider.ts";
import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Trello's REST API (Nango's `trello`). Trello authorizes with OAuth 1.0a, which Junction does not do, or
 * with its /1/authorize route, which hands the user a token for an app's API key; every call then carries
 * `key` and `token` query parameters: https://developer.atlassian.com/cloud/trello/guides/rest-api/authorization/.
 * A definition injects one credential, so a connection holds the user's token (sent as `token`), and the
 * caller adds the app's API key (`key`, public by Trello's design: it identifies the Power-Up) to each
 * proxied call's query.
 */
const definition: ProviderDefinitionInput = {
  name: "trello",
  displayName: "Trello",
  authMode: "API_KEY",
  docsUrl: "https://developer.atlassian.com/cloud/trello/guides/rest-api/authorization/",
  baseUrl: "https://api.trello.com",
  apiKey: { in: "query", name: "token", prefix: "" },
  connectFields: [
    {
      key: "apiKey",
      label: "Token (from the app's authorize link, or generated next to its API key)",
      docsUrl: "https://developer.atlassian.com/cloud/trello/guides/rest-api/authorization/",
      secret: true,
    },
  ],
  allowedOverrideHosts: ["api.trello.com"],
};

export const trello: ProviderAdapter = { ...adapterFromDefinition(definition), proxyPathExample: "1/members/me" };
