import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

/**
 * The account a Graph connection belongs to: the signed-in user's id from GET /v1.0/me, which User.Read
 * allows (https://learn.microsoft.com/en-us/graph/api/user-get). Stored as connection_config.userId.
 */
/** The same request as the definition's account identity request. */
export const GRAPH_IDENTITY: NonNullable<ProviderDefinitionInput["identity"]> = {
  url: "/v1.0/me",
  idPath: "id",
  docsUrl: "https://learn.microsoft.com/en-us/graph/api/user-get",
};

export const GRAPH_USER_ID: NonNullable<ProviderDefinitionInput["connectionConfig"]> = [
  { key: "userId", from: "request", url: "/v1.0/me", path: "id" },
];
