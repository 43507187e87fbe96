import { z } from "zod";
import { errorResponse } from "../../http/error-response.ts";
import { iso, json } from "../../http/json.ts";
import { parseWith, readJson } from "../../http/read-json.ts";
import { type McpAuth, mcpResourceUrl } from "../../mcp-auth/mcp-auth.ts";
import { type McpServerGrant, newSecret } from "../../mcp-auth/mcp-auth-store.ts";
import { dataOf, isoOrNull, type RouteDoc } from "../../openapi/route-doc.ts";
import type { Route, RouteContext } from "../../router.ts";

const key = z.string().min(1).max(255);

const createBody = z
  .object({
    end_user: z
      .object({
        id: key.describe("The end user whose connections the MCP URL reaches (a connection's `end_user.id`)."),
        email: z.string().email().max(255).optional(),
        display_name: z.string().max(255).optional(),
      })
      .strict(),
    allowed_integrations: z
      .array(key)
      .max(100)
      .optional()
      .describe("The integrations whose actions are the tools; left out: every integration."),
  })
  .strict();

const serverAnswer = z.object({
  id: z.string(),
  url: z.string(),
  end_user: z.object({ id: z.string(), email: z.string().optional(), display_name: z.string().optional() }),
  allowed_integrations: z.array(z.string()),
  created_at: z.string(),
  revoked_at: isoOrNull,
});

const present = (baseUrl: string, s: McpServerGrant) => ({
  id: s.id,
  url: mcpResourceUrl(baseUrl, s.id),
  end_user: {
    id: s.endUser.id,
    ...(s.endUser.email ? { email: s.endUser.email } : {}),
    ...(s.endUser.displayName ? { display_name: s.endUser.displayName } : {}),
  },
  allowed_integrations: s.integrations,
  created_at: iso(BigInt(s.createdAtMs)) ?? "",
  revoked_at: s.revokedAtMs === undefined ? null : iso(BigInt(s.revokedAtMs)),
});

/**
 * The customer's side of the MCP front door (secret key): issue an end user an MCP URL, read it,
 * revoke it (its tokens with it), or revoke only the tokens its clients hold.
 */
export function mcpServerRoutes(auth: McpAuth, closeSessions: (id: string) => void): Route[] {
  const found = async (ctx: RouteContext) => {
    const server = await auth.store.getServer(ctx.params.id ?? "");
    return server && server.environmentId === ctx.environmentId ? server : undefined;
  };
  const notFound = () => errorResponse(404, "unknown_mcp_server", "No MCP URL has this id, or it was revoked.");
  return [
    {
      method: "POST",
      pattern: "/mcp/servers",
      handler: (ctx) => createServer(ctx, auth),
      doc: createDoc,
    },
    {
      method: "GET",
      pattern: "/mcp/servers/:id",
      handler: async (ctx) => {
        const server = await found(ctx);
        return server ? json({ data: present(ctx.baseUrl, server) }) : notFound();
      },
      doc: readDoc,
    },
    {
      method: "DELETE",
      pattern: "/mcp/servers/:id",
      handler: async (ctx) => {
        const server = await found(ctx);
        if (!server || server.revokedAtMs !== undefined) return notFound();
        await auth.store.revokeServer(server.id, auth.now());
        closeSessions(server.id);
        return json({ success: true });
      },
      doc: revokeDoc,
    },
    {
      method: "DELETE",
      pattern: "/mcp/servers/:id/tokens",
      handler: async (ctx) => {
        const server = await found(ctx);
        if (!server || server.revokedAtMs !== undefined) return notFound();
        const revoked = await auth.store.revokeTokens(server.id);
        closeSessions(server.id);
        return json({ data: { revoked_tokens: revoked } });
      },
      doc: revokeTokensDoc,
    },
  ];
}

/** Issues an MCP URL for one end user, limited to integrations that exist. */
async function createServer(ctx: RouteContext, auth: McpAuth): Promise<Response> {
  const body = parseWith(createBody, await readJson(ctx.req, 16 * 1024), "invalid_body", "body");
  const integrations = [...new Set(body.allowed_integrations ?? [])];
  // Each must exist (unknown_provider_config otherwise), so a typo is not a URL with no tools.
  for (const uniqueKey of integrations) await ctx.clients.connection.getIntegration({ uniqueKey });
  const server: McpServerGrant = {
    id: newSecret("mcpu_"),
    environmentId: ctx.environmentId,
    endUser: {
      id: body.end_user.id,
      ...(body.end_user.email ? { email: body.end_user.email } : {}),
      ...(body.end_user.display_name ? { displayName: body.end_user.display_name } : {}),
    },
    integrations,
    createdAtMs: auth.now(),
  };
  await auth.store.putServer(server);
  return json({ data: present(ctx.baseUrl, server) }, 201);
}

const createDoc: RouteDoc = {
  summary: "Issue an end user an MCP URL",
  description:
    "An MCP URL (`url`, `<base>/mcp/u/<id>`) for one end user's agent: an OAuth 2.1 protected resource whose tools are the actions of the allowed integrations, run on that end user's connections only. The end user's MCP client discovers Junction as its authorization server, and the end user consents once in the Connect UI. Give the URL only to that end user: whoever holds it can ask to be authorized. See docs/agents.md.",
  tags: ["MCP"],
  body: createBody,
  responses: { 201: dataOf(serverAnswer) },
  errors: ["unknown_provider_config"],
};

const readDoc: RouteDoc = {
  summary: "Read an MCP URL",
  tags: ["MCP"],
  params: { id: "The MCP URL's id." },
  responses: { 200: dataOf(serverAnswer) },
  errors: ["unknown_mcp_server"],
};

const revokeDoc: RouteDoc = {
  summary: "Revoke an MCP URL",
  description: "The URL stops answering, and every token issued for it stops working at once.",
  tags: ["MCP"],
  params: { id: "The MCP URL's id." },
  responses: { 200: z.object({ success: z.literal(true) }) },
  errors: ["unknown_mcp_server"],
};

const revokeTokensDoc: RouteDoc = {
  summary: "Revoke the tokens of an MCP URL",
  description:
    "Every access and refresh token issued for the URL stops working; the URL stays, and its end user's client must be authorized again.",
  tags: ["MCP"],
  params: { id: "The MCP URL's id." },
  responses: { 200: dataOf(z.object({ revoked_tokens: z.number().int() })) },
  errors: ["unknown_mcp_server"],
};
