import { z } from "zod";
import { queryObject } from "../../http/read-json.ts";
import { type McpAuth, mcpResourceUrl } from "../../mcp-auth/mcp-auth.ts";
import { newSecret } from "../../mcp-auth/mcp-auth-store.ts";
import { CONSENT_TTL_MS } from "../../mcp-auth/mcp-auth-settings.ts";
import { findClient, withQuery } from "../../mcp-auth/find-client.ts";
import { type McpAttempt, recordMcpAuthorization } from "../../mcp-auth/mcp-authorization-operation.ts";
import type { Route, RouteContext } from "../../router.ts";
import { htmlPage } from "../oauth/html-page.ts";

const authorizeQuery = z.object({
  response_type: z.string().optional(),
  client_id: z.string().max(2048).optional(),
  redirect_uri: z.string().max(2048).optional(),
  code_challenge: z.string().max(128).optional(),
  code_challenge_method: z.string().max(16).optional(),
  state: z.string().max(2048).optional(),
  resource: z.string().max(2048).optional(),
  scope: z.string().max(2048).optional(),
});

/** A PKCE S256 challenge: base64url of a SHA-256, 43 characters (RFC 7636 section 4.2). */
const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

/**
 * GET /mcp/oauth/authorize: checks the request (client, redirect URI, PKCE S256, `resource` naming a
 * live MCP URL of this Junction) and sends the browser to the consent page of the Connect UI. A bad
 * client or redirect URI is shown on a page (never redirected to: it is not trusted); the other errors
 * go back to the client's redirect URI, as RFC 6749 section 4.1.2.1 asks.
 */
export function authorizeRoute(auth: McpAuth): Route {
  return {
    method: "GET",
    pattern: "/mcp/oauth/authorize",
    auth: false,
    handler: (ctx) => authorize(auth, ctx),
    doc: {
      summary: "Authorize an MCP client (OAuth 2.1, PKCE)",
      description:
        "The authorization endpoint of Junction's metadata: `response_type=code`, `client_id` (registered, or a client ID metadata document's https URL), `redirect_uri` (one of the client's), `code_challenge` with `code_challenge_method=S256`, `state`, and `resource`: the MCP URL (RFC 8707). Redirects to the consent page; errors after the client is known go back to its redirect URI.",
      tags: ["MCP"],
      query: authorizeQuery,
      queryUnchecked: true,
      responses: {
        302: {
          description: "To the consent page, or back to the client with `error`.",
          headers: { location: "Where to." },
        },
        400: {
          description: "A page naming what is wrong with the client or its redirect URI.",
          contentType: "text/html",
        },
      },
      errors: [],
    },
  };
}

async function authorize(auth: McpAuth, ctx: RouteContext): Promise<Response> {
  const parsed = authorizeQuery.safeParse(queryObject(ctx.url));
  const q = parsed.success ? parsed.data : {};
  const attempt: McpAttempt = { route: "GET /mcp/oauth/authorize", step: "start", startedAtMs: auth.now() };
  attempt.clientId = q.client_id;
  const refused = recordRefusal(auth, attempt, serverIdOf(ctx.baseUrl, q.resource));
  const refuse = async (code: string, message: string) => {
    await refused(code, message, 400);
    return htmlPage(
      400,
      { title: "Cannot authorize", code, heading: "This app cannot be authorized", message },
      ctx.requestId,
    );
  };
  if (!q.client_id) return refuse("invalid_request", "The request names no client (client_id).");
  const client = await findClient(auth, q.client_id);
  if (typeof client === "string") return refuse("invalid_client", `The client is unknown: ${client}.`);
  const redirectUri = q.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
    return refuse("invalid_redirect_uri", "The redirect URI is not one the client registered.");
  }
  const back = async (error: string, description: string) => {
    await refused(error, description, 302);
    return Response.redirect(
      withQuery(redirectUri, { error, error_description: description, state: q.state, iss: ctx.baseUrl }),
      302,
    );
  };
  if (!parsed.success) return back("invalid_request", "A parameter is too long.");
  if (q.response_type !== "code") return back("unsupported_response_type", "Only response_type=code is supported.");
  if (q.code_challenge_method !== "S256" || !q.code_challenge || !CHALLENGE_RE.test(q.code_challenge)) {
    return back("invalid_request", "PKCE is required: code_challenge with code_challenge_method=S256.");
  }
  const serverId = serverIdOf(ctx.baseUrl, q.resource);
  const server = serverId ? await auth.store.getServer(serverId) : undefined;
  attempt.server = server;
  if (!server || server.revokedAtMs !== undefined) {
    return back("invalid_target", "resource must be an MCP URL of this Junction that was not revoked.");
  }
  const id = newSecret("mcpr_");
  await auth.store.sweep(auth.now());
  await auth.store.putConsent({
    id,
    clientId: client.clientId,
    serverId: server.id,
    redirectUri,
    codeChallenge: q.code_challenge,
    state: q.state,
    resource: mcpResourceUrl(ctx.baseUrl, server.id),
    expiresAtMs: auth.now() + CONSENT_TTL_MS,
  });
  return Response.redirect(`${ctx.baseUrl}/connect/mcp/consent?request=${encodeURIComponent(id)}`, 302);
}

/** Records the attempt refused (it ends there), with the MCP URL's end user when `resource` named one. */
function recordRefusal(auth: McpAuth, attempt: McpAttempt, serverId: string | undefined) {
  return async (code: string, message: string, status: number): Promise<void> => {
    if (!auth.operations?.enabled) return;
    attempt.server ??= serverId ? await auth.store.getServer(serverId) : undefined;
    recordMcpAuthorization(auth, attempt, { ok: false, code, message, status });
  };
}

/** The MCP URL id a `resource` names, when it is exactly one of this Junction's MCP URLs. */
function serverIdOf(baseUrl: string, resource: string | undefined): string | undefined {
  const prefix = `${baseUrl}/mcp/u/`;
  if (!resource?.startsWith(prefix)) return undefined;
  const id = resource.slice(prefix.length);
  return /^[A-Za-z0-9_-]+$/.test(id) ? id : undefined;
}
