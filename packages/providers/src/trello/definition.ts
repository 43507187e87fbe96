import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Trello's REST API (Nango's `trello`). Trello authorizes with OAuth 1.0a, which Junction does not do, or
 * with its /1/authorize route, which hands the user a token for an app's API key; every call then carries
 * `key` and `token` query parameters: https://developer.atlassian.com/cloud/trello/guides/rest-api/authorization/.
 * A definition injects one credential, so a connection holds the user's token (sent as `token`), and the
 * caller adds the app's API key (`key`, public by Trello's design: it identifies the Power-Up) to each
 * proxied call's query.
 */
export const trello = {
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
  // Junction sends no identity request itself (connection-config requests run only after an OAuth code
  // exchange): for an API key connection it is documentation (docs/providers.md) of who the credentials are.
  // The account identity: GET /1/members/me, the member the token belongs to (with `key` and `token`).
  identity: {
    url: "/1/members/me",
    idPath: "id",
    docsUrl: "https://developer.atlassian.com/cloud/trello/rest/api-group-members/#api-members-id-get",
  },
  allowedOverrideHosts: ["api.trello.com"],
} satisfies ProviderDefinitionInput;
