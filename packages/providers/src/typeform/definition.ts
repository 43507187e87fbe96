import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * Typeform's Create, Responses and Webhooks APIs (Nango's `typeform`). A refresh token comes only with
 * the `offline` scope; accounts on the EU data center use api.typeform.eu instead (an operator override):
 * https://www.typeform.com/developers/get-started/applications/, https://www.typeform.com/developers/get-started/scopes/.
 * Typeform classifies no scope as sensitive: every one is "basic" here.
 */
export const typeform = {
  name: "typeform",
  displayName: "Typeform",
  authMode: "OAUTH2",
  docsUrl: "https://www.typeform.com/developers/get-started/applications/",
  baseUrl: "https://api.typeform.com",
  authorizationUrl: "https://api.typeform.com/oauth/authorize",
  tokenUrl: "https://api.typeform.com/oauth/token",
  // Typeform documents no PKCE; none is sent.
  pkce: "refused",
  scopes: [
    { name: "offline", description: "Stay connected (a refresh token is issued).", sensitivity: "basic" },
    { name: "accounts:read", description: "Read the account's information.", sensitivity: "basic" },
    { name: "forms:read", description: "Read forms.", sensitivity: "basic" },
    { name: "forms:write", description: "Create, update and delete forms.", sensitivity: "basic" },
    { name: "responses:read", description: "Read form responses.", sensitivity: "basic" },
    { name: "responses:write", description: "Delete form responses.", sensitivity: "basic" },
    { name: "webhooks:read", description: "Read webhooks.", sensitivity: "basic" },
    { name: "webhooks:write", description: "Create, update and delete webhooks.", sensitivity: "basic" },
    { name: "workspaces:read", description: "Read workspaces.", sensitivity: "basic" },
    { name: "workspaces:write", description: "Create, update and delete workspaces.", sensitivity: "basic" },
    { name: "themes:read", description: "Read themes.", sensitivity: "basic" },
    { name: "themes:write", description: "Create, update and delete themes.", sensitivity: "basic" },
    { name: "images:read", description: "Read images.", sensitivity: "basic" },
    { name: "images:write", description: "Upload and delete images.", sensitivity: "basic" },
  ],
  defaultScopes: ["offline", "accounts:read", "forms:read", "responses:read"],
  // The account identity: GET /me answers the alias, email and language, and the account's `user_id`.
  identity: {
    url: "/me",
    idPath: "user_id",
    docsUrl: "https://www.typeform.com/developers/create/reference/retrieve-own-account/",
  },
  allowedOverrideHosts: ["api.typeform.com", "api.typeform.eu"],
} satisfies ProviderDefinitionInput;
