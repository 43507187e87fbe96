import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://developers.notion.com/docs/authorization";

/**
 * Notion's public integrations. Every API call needs a `Notion-Version` header, which the caller sends
 * through the proxy ("Notion-Version: 2022-06-28"; https://developers.notion.com/reference/versioning).
 */
export const notion = {
  name: "notion",
  displayName: "Notion",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: https://api.notion.com/v1/oauth/authorize?owner=user..., then POST /v1/oauth/token with the
  // client id and secret in a Basic header.
  authorizationUrl: "https://api.notion.com/v1/oauth/authorize",
  tokenUrl: "https://api.notion.com/v1/oauth/token",
  authorizationParams: { owner: "user" },
  clientAuthentication: "client_secret_basic",
  baseUrl: "https://api.notion.com",
  // OAUTH: what the integration may do (its capabilities) is set on the integration, not with scopes.
  scopes: [],
  // OAUTH: the answer names the workspace in workspace_id.
  connectionConfig: [{ key: "workspace_id", from: "token_response", path: "workspace_id" }],
  identity: {
    url: "/v1/users/me",
    idPath: "id",
    docsUrl: "https://developers.notion.com/reference/get-self",
  },
} satisfies ProviderDefinitionInput;
