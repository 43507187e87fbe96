import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://developers.notion.com/docs/authorization";

/** Notion's public integrations. */
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
  // https://developers.notion.com/reference/versioning: every request names the API version in a
  // Notion-Version header (a caller picks another with Nango-Proxy-Notion-Version).
  proxyHeaders: { "Notion-Version": "2022-06-28" },
  // OAUTH: what the integration may do (its capabilities) is set on the integration, not with scopes.
  scopes: [],
  // OAUTH: the answer names the workspace in workspace_id.
  connectionConfig: [{ key: "workspace_id", from: "token_response", path: "workspace_id" }],
  identity: {
    url: "/v1/users/me",
    idPath: "id",
    docsUrl: "https://developers.notion.com/reference/get-self",
  },
  // PAGINATION: https://developers.notion.com/reference/intro#pagination (as Nango's providers.yaml, proxy.paginate)
  paginate: {
    type: "cursor",
    cursor_name_in_request: "start_cursor",
    cursor_path_in_response: "next_cursor",
    response_path: "results",
    limit_name_in_request: "page_size",
  },
} satisfies ProviderDefinitionInput;
