import { z } from "zod";
import { errorResponse } from "../../http/error-response.ts";
import { json } from "../../http/json.ts";
import type { McpAuth } from "../../mcp-auth/mcp-auth.ts";
import { authorizationServerMetadata, mcpResourceUrl } from "../../mcp-auth/mcp-auth.ts";
import type { Route } from "../../router.ts";

const resourceMetadata = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
});

const serverMetadata = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  registration_endpoint: z.string(),
  response_types_supported: z.array(z.string()),
  response_modes_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  client_id_metadata_document_supported: z.boolean(),
});

/**
 * The discovery documents an MCP client reads after a 401: the MCP URL's protected resource metadata
 * (RFC 9728, naming Junction as its authorization server) and Junction's authorization server
 * metadata (RFC 8414).
 */
export function oauthMetadataRoutes(auth: McpAuth): Route[] {
  return [
    {
      method: "GET",
      pattern: "/.well-known/oauth-protected-resource/mcp/u/:id",
      auth: false,
      handler: async ({ params, baseUrl }) => {
        const server = await auth.store.getServer(params.id ?? "");
        if (!server || server.revokedAtMs !== undefined) {
          return errorResponse(404, "unknown_mcp_server", "No MCP URL has this id, or it was revoked.");
        }
        return json({
          resource: mcpResourceUrl(baseUrl, server.id),
          authorization_servers: [baseUrl],
          bearer_methods_supported: ["header"],
          resource_name: "Junction MCP tools",
        });
      },
      doc: {
        summary: "Protected resource metadata of an MCP URL",
        description:
          "RFC 9728: the MCP URL `/mcp/u/{id}` as a protected resource whose authorization server is Junction. An MCP client reads it from the `resource_metadata` of the 401's `WWW-Authenticate`.",
        tags: ["MCP"],
        params: { id: "The MCP URL's id." },
        responses: { 200: resourceMetadata },
        errors: ["unknown_mcp_server"],
      },
    },
    {
      method: "GET",
      pattern: "/.well-known/oauth-authorization-server",
      auth: false,
      handler: async ({ baseUrl }) => json(authorizationServerMetadata(baseUrl)),
      doc: {
        summary: "Authorization server metadata for MCP clients",
        description:
          "RFC 8414: where an MCP client authorizes (`/mcp/oauth/authorize`, PKCE S256), exchanges codes (`/mcp/oauth/token`) and registers (`/mcp/oauth/register`, or a client ID metadata document's URL as its `client_id`).",
        tags: ["MCP"],
        responses: { 200: serverMetadata },
        errors: [],
      },
    },
  ];
}
