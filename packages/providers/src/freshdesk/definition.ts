import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const AUTH = "https://developers.freshdesk.com/api/#authentication";

/**
 * Freshdesk with an agent's API key. AUTH: HTTP Basic with the API key as the user name and any
 * password ("X" in its examples); the API is at https://{domain}.freshdesk.com/api/v2.
 */
export const freshdesk = {
  name: "freshdesk",
  displayName: "Freshdesk",
  authMode: "BASIC",
  docsUrl: AUTH,
  baseUrl: "https://{subdomain}.freshdesk.com",
  connectFields: [
    {
      key: "subdomain",
      label: "Freshdesk subdomain (the name before .freshdesk.com)",
      docsUrl: AUTH,
    },
    {
      key: "username",
      label: "API key (Profile settings → View API key)",
      docsUrl: "https://support.freshdesk.com/support/solutions/articles/215517-how-to-find-your-api-key",
      secret: true,
    },
    { key: "password", label: "Password: any text, e.g. X (ignored with an API key)", docsUrl: AUTH },
  ],
  identity: {
    url: "/api/v2/agents/me",
    idPath: "id",
    docsUrl: "https://developers.freshdesk.com/api/#me",
  },
} satisfies ProviderDefinitionInput;
