import { browserRedirect } from "../../http/browser-redirect.ts";
import { fromConnectError } from "@junction/platform";
import { z } from "zod";
import { readForm } from "../../dashboard/read-form.ts";
import type { McpAuth } from "../../mcp-auth/mcp-auth.ts";
import { consentPage } from "../../mcp-auth/consent-page.ts";
import { AUTHORIZATION_CODE_TTL_MS } from "../../mcp-auth/mcp-auth-settings.ts";
import { findClient, withQuery } from "../../mcp-auth/find-client.ts";
import { type McpStep, recordMcpAuthorization } from "../../mcp-auth/mcp-authorization-operation.ts";
import { type ConsentRequest, newSecret } from "../../mcp-auth/mcp-auth-store.ts";
import type { RouteDoc } from "../../openapi/route-doc.ts";
import type { Route, RouteContext } from "../../router.ts";
import { htmlPage } from "../oauth/html-page.ts";
import { coveredIntegrations } from "../../mcp-auth/user-tools.ts";

const consentQuery = z.object({ request: z.string().max(200) });

/**
 * The end user's consent to an MCP client, in the Connect UI: GET shows who asks for what, POST takes
 * Allow (a single-use code, back to the client) or Deny (`access_denied`, back to the client).
 */
export function consentRoutes(auth: McpAuth): Route[] {
  return [
    {
      method: "GET",
      pattern: "/connect/mcp/consent",
      auth: false,
      handler: (ctx) => showConsent(ctx, auth),
      doc: showDoc,
    },
    {
      method: "POST",
      pattern: "/connect/mcp/consent",
      auth: false,
      handler: (ctx) => answerConsent(ctx, auth),
      doc: answerDoc,
    },
  ];
}

/** The consent page: the client, the end user, and the integrations the MCP URL covers. */
async function showConsent(ctx: RouteContext, auth: McpAuth): Promise<Response> {
  const startedAtMs = auth.now();
  const request = await auth.store.getConsent(ctx.url.searchParams.get("request") ?? "");
  const found = await live(auth, request);
  if (!found) return gone(ctx, auth, { route: "GET /connect/mcp/consent", startedAtMs, request });
  const client = await findClient(auth, found.request.clientId);
  if (typeof client === "string") return gone(ctx, auth, { route: "GET /connect/mcp/consent", startedAtMs, request });
  const { server } = found;
  const integrations = await coveredIntegrations(ctx.clients, server);
  const { connections } = await ctx.clients.connection.listConnections({
    endUserId: server.endUser.id,
    limit: 2000,
  });
  const connected = new Set(connections.map((c) => c.providerConfigKey));
  return consentPage(
    {
      requestId: found.request.id,
      clientName: client.clientName,
      clientOrigin: client.kind === "metadata_document" ? new URL(client.clientId).host : "registered with Junction",
      endUser: server.endUser.displayName ?? server.endUser.email ?? server.endUser.id,
      integrations: integrations.map((i) => ({
        name: i.displayName || i.uniqueKey,
        connected: connected.has(i.uniqueKey),
      })),
      allIntegrations: server.integrations.length === 0,
      redirectOrigin: new URL(found.request.redirectUri).origin,
    },
    ctx.requestId,
  );
}

/** Allow: a single-use code back to the client; anything else: `access_denied` back to the client. */
async function answerConsent(ctx: RouteContext, auth: McpAuth): Promise<Response> {
  const ended = { route: "POST /connect/mcp/consent", startedAtMs: auth.now() };
  let form: Record<string, string>;
  try {
    form = await readForm(ctx.req, 4096);
  } catch (err) {
    const failure = fromConnectError(err);
    const end = { ok: false as const, code: failure.code, message: failure.message, status: 400 };
    recordMcpAuthorization(auth, { ...ended, step: "consent" }, end);
    throw err;
  }
  const taken = await auth.store.takeConsent(form.request ?? "");
  const found = await live(auth, taken);
  if (!found) return gone(ctx, auth, { ...ended, request: taken });
  const { request, server } = found;
  if (form.decision !== "allow") {
    const denied = { error: "access_denied", error_description: "The user denied access.", state: request.state };
    const facts = { ...ended, step: "consent" as McpStep, clientId: request.clientId, server };
    recordMcpAuthorization(auth, facts, {
      ok: false,
      code: denied.error,
      message: denied.error_description,
      status: 303,
    });
    return redirect(withQuery(request.redirectUri, { ...denied, iss: ctx.baseUrl }));
  }
  const code = newSecret("mcpcode_");
  await auth.store.putCode(code, {
    clientId: request.clientId,
    serverId: request.serverId,
    resource: request.resource,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    expiresAtMs: auth.now() + AUTHORIZATION_CODE_TTL_MS,
  });
  return redirect(withQuery(request.redirectUri, { code, state: request.state, iss: ctx.baseUrl }));
}

/**
 * The page for a consent request already answered, expired, or whose MCP URL was revoked: the end of the
 * attempt, recorded (with the MCP URL's end user when the request is known).
 */
async function gone(
  ctx: RouteContext,
  auth: McpAuth,
  ended: { route: string; startedAtMs: number; request: ConsentRequest | undefined },
): Promise<Response> {
  if (auth.operations?.enabled) {
    const { request } = ended;
    const server = request ? await auth.store.getServer(request.serverId) : undefined;
    const facts = { ...ended, step: "consent" as McpStep, clientId: request?.clientId, server };
    recordMcpAuthorization(auth, facts, { ok: false, code: "unknown_consent_request", message: GONE, status: 400 });
  }
  return htmlPage(
    400,
    {
      title: "Cannot authorize",
      code: "unknown_consent_request",
      heading: "This request has expired",
      message: GONE,
    },
    ctx.requestId,
  );
}

/** The request and its MCP server while both are still good: unexpired, not revoked. */
async function live(auth: McpAuth, request: ConsentRequest | undefined) {
  if (!request || request.expiresAtMs <= auth.now()) return undefined;
  const server = await auth.store.getServer(request.serverId);
  return server && server.revokedAtMs === undefined ? { request, server } : undefined;
}

const showDoc: RouteDoc = {
  summary: "Consent page for an MCP client",
  description:
    "The Connect UI's page where the end user allows or denies an MCP client (named, with the end user and the integrations); reached from `/mcp/oauth/authorize`.",
  tags: ["MCP"],
  query: consentQuery,
  queryUnchecked: true,
  responses: { 200: { description: "The consent page.", contentType: "text/html" } },
  errors: [],
};

const answerDoc: RouteDoc = {
  summary: "Answer the consent page",
  description:
    "The consent form's answer (`request`, `decision`: `allow` or `deny`), as a form post. Allow redirects to the client with a single-use code (valid one minute); Deny with `error=access_denied`.",
  tags: ["MCP"],
  rawBody: "application/x-www-form-urlencoded: `request` and `decision`.",
  responses: { 303: { description: "Back to the client's redirect URI.", headers: { location: "Where to." } } },
  errors: ["invalid_body"],
};

const redirect = (location: string) => browserRedirect(location, 303);

const GONE = "Start again from your app: the request was already answered, expired, or its MCP URL was revoked.";
