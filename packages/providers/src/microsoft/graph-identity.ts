import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * The account a Graph connection belongs to: the signed-in user's id from GET /v1.0/me, which User.Read
 * allows (https://learn.microsoft.com/en-us/graph/api/user-get). Stored as connection_config.userId.
 */
export const GRAPH_USER_ID: NonNullable<ProviderDefinitionInput["connectionConfig"]> = [
  { key: "userId", from: "request", url: "/v1.0/me", path: "id" },
];
