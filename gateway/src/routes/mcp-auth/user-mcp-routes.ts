import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { errorResponse } from "../../http/error-response.ts";
import { type McpAuth, mcpResourceUrl, resourceMetadataUrl } from "../../mcp-auth/mcp-auth.ts";
import type { McpServerGrant } from "../../mcp-auth/mcp-auth-store.ts";
import type { UserMcpSessions } from "../../mcp-auth/user-mcp-sessions.ts";
import { userToolsServer } from "../../mcp-auth/user-tools-server.ts";
import type { Route, RouteContext } from "../../router.ts";
import { readMessage, rpcError } from "../mcp/mcp-routes.ts";

/**
 * `<base>/mcp/u/{id}`: an end user's MCP URL, an OAuth 2.1 protected resource. With an access token
 * issued for exactly this URL (its audience), it serves the covered integrations' actions on that end
 * user's connections (userToolsServer) in MCP sessions; without one, 401 with `WWW-Authenticate`
 * naming the resource metadata, where the client learns to authorize with Junction.
 */
export function userMcpRoutes(auth: McpAuth, sessions: UserMcpSessions): Route[] {
  const doc = {
    tags: ["MCP"],
    params: { id: "The MCP URL's id (from POST /mcp/servers)." },
    errors: ["invalid_token" as const],
  };
  return [
    {
      method: "POST",
      pattern: "/mcp/u/:id",
      auth: false,
      handler: (ctx) => serveUserMcp(auth, sessions, ctx),
      doc: {
        ...doc,
        summary: "An end user's MCP server",
        description:
          "Model Context Protocol over Streamable HTTP with sessions (`Mcp-Session-Id`), behind `Authorization: Bearer <access token>` from Junction's `/mcp/oauth/token` for this URL. `tools/list` answers the covered integrations' actions (named `<integration>__<action>` unless the URL is limited to one integration); `tools/call` runs one on the end user's own connection, or answers a connect link when they have none (a URL-mode elicitation when the client supports it). Without a valid token: 401 with `WWW-Authenticate: Bearer resource_metadata=\"…\"`.",
        rawBody: "A JSON-RPC 2.0 message of the Model Context Protocol.",
        responses: {
          200: {
            description: "JSON-RPC answers, as JSON or a server-sent event stream.",
            contentType: "text/event-stream",
          },
          202: { description: "A notification or response was accepted." },
        },
      },
    },
    {
      method: "DELETE",
      pattern: "/mcp/u/:id",
      auth: false,
      handler: (ctx) => serveUserMcp(auth, sessions, ctx),
      doc: {
        ...doc,
        summary: "End an MCP session",
        description: "Closes the session of `Mcp-Session-Id` (the client is done).",
        responses: { 200: { description: "The session is closed." } },
      },
    },
    {
      method: "GET",
      pattern: "/mcp/u/:id",
      auth: false,
      handler: async () => rpcError(405, -32000, "Method not allowed."),
      doc: {
        ...doc,
        summary: "MCP server-sent stream (not offered)",
        description: "405: the server sends only on the stream of a POST's answer.",
        responses: { 405: { description: "A JSON-RPC error.", contentType: "application/json" } },
        errors: [],
      },
    },
  ];
}

async function serveUserMcp(auth: McpAuth, sessions: UserMcpSessions, ctx: RouteContext): Promise<Response> {
  const id = ctx.params.id ?? "";
  const bearer = await bearerGrant(auth, ctx, id);
  if (bearer instanceof Response) return bearer;
  const { server: grant, authInfo } = bearer;
  const sessionId = ctx.req.headers.get("mcp-session-id");
  if (ctx.req.method === "DELETE") {
    const transport = sessionId ? sessions.get(sessionId, id) : undefined;
    return transport ? transport.handleRequest(ctx.req) : rpcError(404, -32001, "Session not found.");
  }
  const body = await readMessage(ctx.req);
  if (body instanceof Response) return body;
  if (sessionId) {
    const transport = sessions.get(sessionId, id);
    if (!transport) return rpcError(404, -32001, "Session not found.");
    return transport.handleRequest(ctx.req, { parsedBody: body, authInfo });
  }
  if (!isInitializeRequest(body)) {
    return rpcError(400, -32000, "Bad Request: no session; start one with an initialize request.");
  }
  const transport = await sessions.open(id, userToolsServer(ctx.clients, grant, ctx.baseUrl, ctx.logger));
  return transport.handleRequest(ctx.req, { parsedBody: body, authInfo });
}

/**
 * The MCP URL behind a valid access token for it, with what the token says of its client (handed to
 * the tool calls of this request, which record it as their caller), or the 401 (RFC 6750 section 3)
 * whose `WWW-Authenticate` points the client at the resource metadata (RFC 9728 section 5.1).
 */
async function bearerGrant(
  auth: McpAuth,
  ctx: RouteContext,
  id: string,
): Promise<{ server: McpServerGrant; authInfo: AuthInfo } | Response> {
  const header = ctx.req.headers.get("authorization") ?? "";
  const token = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header)?.[1];
  const metadata = `resource_metadata="${resourceMetadataUrl(ctx.baseUrl, id)}"`;
  const refuse = (message: string, challenge: string) =>
    errorResponse(401, "invalid_token", message, [], { "www-authenticate": challenge });
  if (token === undefined)
    return refuse("Send an access token for this MCP URL: Authorization: Bearer <token>.", `Bearer ${metadata}`);
  const [grant, server] = await Promise.all([auth.store.getAccessToken(token), auth.store.getServer(id)]);
  const valid =
    grant !== undefined &&
    grant.expiresAtMs > auth.now() &&
    grant.serverId === id &&
    grant.resource === mcpResourceUrl(ctx.baseUrl, id) &&
    server !== undefined &&
    server.revokedAtMs === undefined;
  if (!valid || !server) {
    return refuse(
      "The access token is not valid for this MCP URL: unknown, expired, revoked or issued for another resource.",
      `Bearer error="invalid_token", error_description="The access token is not valid for this resource", ${metadata}`,
    );
  }
  const clientName = (await auth.store.getClient(grant.clientId))?.clientName || grant.clientId;
  return { server, authInfo: { token, clientId: grant.clientId, scopes: [], extra: { clientName } } };
}
