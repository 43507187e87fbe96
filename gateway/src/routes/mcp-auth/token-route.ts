import { createHash } from "node:crypto";
import { constantTimeEqual, readTextLimited } from "@junction/platform";
import { z } from "zod";
import type { McpAuth } from "../../mcp-auth/mcp-auth.ts";
import { newSecret, type TokenGrant } from "../../mcp-auth/mcp-auth-store.ts";
import { type McpAttempt, recordMcpAuthorization } from "../../mcp-auth/mcp-authorization-operation.ts";
import { oauthError, oauthJson } from "../../mcp-auth/oauth-answers.ts";
import type { Route } from "../../router.ts";

const MAX_BODY_BYTES = 16 * 1024;

const tokenAnswer = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
  refresh_token: z.string(),
});

/**
 * POST /mcp/oauth/token: an authorization code (with its PKCE verifier, redirect URI, client and
 * resource) or a refresh token for an access token bound to the MCP URL (its audience) and a new
 * refresh token; the refresh token used is spent (rotation). Errors are OAuth's (RFC 6749 5.2).
 */
export function tokenRoute(auth: McpAuth): Route {
  return {
    method: "POST",
    pattern: "/mcp/oauth/token",
    auth: false,
    handler: async ({ req }) => {
      const attempt: TokenAttempt = { route: "POST /mcp/oauth/token", step: "exchange", startedAtMs: auth.now() };
      return ended(auth, attempt, await answer(auth, req, attempt));
    },
    doc: {
      summary: "Exchange a code or refresh token (MCP clients)",
      description:
        "The token endpoint of Junction's metadata, for public clients: `grant_type=authorization_code` with `code`, `code_verifier`, `redirect_uri`, `client_id`, `resource`; or `grant_type=refresh_token` with `refresh_token`, `client_id`. Answers an access token for the MCP URL and a new refresh token. Errors are OAuth's (`invalid_grant`, `invalid_client`, `invalid_target`...).",
      tags: ["MCP"],
      rawBody: "application/x-www-form-urlencoded, as RFC 6749 section 4.1.3 and 6.",
      responses: {
        200: tokenAnswer,
        400: { description: "An OAuth error (`error`, `error_description`).", contentType: "application/json" },
      },
      errors: [],
    },
  };
}

/** The request's end: tokens issued, or the OAuth error (RFC 6749 5.2) with its HTTP status. */
type Outcome = Response | { status: number; error: string; description: string };

/** The attempt as the request reveals it: the client it names and the MCP URL of its code or refresh token. */
interface TokenAttempt extends McpAttempt {
  serverId?: string;
}

const refusal = (error: string, description: string, status = 400): Outcome => ({ status, error, description });

async function answer(auth: McpAuth, req: Request, attempt: TokenAttempt): Promise<Outcome> {
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  if (!type.startsWith("application/x-www-form-urlencoded")) {
    return refusal("invalid_request", "Send the request as application/x-www-form-urlencoded.");
  }
  const tooLarge = new Error("too large");
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(await readTextLimited(req.body, MAX_BODY_BYTES, () => tooLarge));
  } catch (err) {
    if (err === tooLarge) return refusal("invalid_request", `The body exceeds ${MAX_BODY_BYTES} bytes.`, 413);
    throw err;
  }
  const clientId = form.get("client_id");
  attempt.clientId = clientId && clientId.length <= 2048 ? clientId : undefined;
  const grantType = form.get("grant_type");
  if (grantType === "authorization_code") return exchangeCode(auth, form, attempt);
  if (grantType === "refresh_token") {
    attempt.step = "refresh";
    return refresh(auth, form, attempt);
  }
  return refusal("unsupported_grant_type", "grant_type must be authorization_code or refresh_token.");
}

/** Records how the request ended (with the MCP URL's end user once its grant named one) and answers it. */
async function ended(auth: McpAuth, attempt: TokenAttempt, outcome: Outcome): Promise<Response> {
  if (auth.operations?.enabled) {
    attempt.server ??= attempt.serverId ? await auth.store.getServer(attempt.serverId) : undefined;
    const end =
      outcome instanceof Response
        ? { ok: true as const }
        : { ok: false as const, code: outcome.error, message: outcome.description, status: outcome.status };
    recordMcpAuthorization(auth, attempt, end);
  }
  return outcome instanceof Response ? outcome : oauthError(outcome.status, outcome.error, outcome.description);
}

async function exchangeCode(auth: McpAuth, form: URLSearchParams, attempt: TokenAttempt): Promise<Outcome> {
  const code = await auth.store.takeCode(form.get("code") ?? "");
  const invalid = (why: string) => refusal("invalid_grant", why);
  attempt.serverId = code?.serverId;
  if (!code || code.expiresAtMs <= auth.now()) return invalid("The code is unknown, expired or already used.");
  if (form.get("client_id") !== code.clientId) return invalid("The code was issued to another client.");
  if (form.get("redirect_uri") !== code.redirectUri) return invalid("redirect_uri is not the authorization request's.");
  const verifier = form.get("code_verifier") ?? "";
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || !constantTimeEqual(challenge, code.codeChallenge)) {
    return invalid("The code_verifier does not match the code_challenge.");
  }
  const resource = form.get("resource");
  if (resource !== null && resource !== code.resource) {
    return refusal("invalid_target", "resource is not the one the user authorized.");
  }
  return issue(auth, code, attempt);
}

async function refresh(auth: McpAuth, form: URLSearchParams, attempt: TokenAttempt): Promise<Outcome> {
  const grant = await auth.store.takeRefreshToken(form.get("refresh_token") ?? "");
  attempt.serverId = grant?.serverId;
  if (!grant || grant.expiresAtMs <= auth.now()) {
    return refusal("invalid_grant", "The refresh token is unknown, expired, revoked or already used.");
  }
  if (form.get("client_id") !== grant.clientId) {
    return refusal("invalid_grant", "The refresh token was issued to another client.");
  }
  const resource = form.get("resource");
  if (resource !== null && resource !== grant.resource) {
    return refusal("invalid_target", "resource is not the one the user authorized.");
  }
  return issue(auth, grant, attempt);
}

/** A new access token and refresh token for the grant's MCP URL, unless that URL was revoked since. */
async function issue(auth: McpAuth, grant: TokenGrant, attempt: TokenAttempt): Promise<Outcome> {
  const server = await auth.store.getServer(grant.serverId);
  attempt.server = server;
  if (!server || server.revokedAtMs !== undefined) {
    return refusal("invalid_grant", "The MCP URL was revoked.");
  }
  const now = auth.now();
  const accessTtl = auth.settings.mcpAccessTokenTtlSeconds;
  const base = { clientId: grant.clientId, serverId: grant.serverId, resource: grant.resource };
  const accessToken = newSecret("jct_mcp_at_");
  const refreshToken = newSecret("jct_mcp_rt_");
  await auth.store.putToken(accessToken, "access", { ...base, expiresAtMs: now + accessTtl * 1000 });
  await auth.store.putToken(refreshToken, "refresh", {
    ...base,
    expiresAtMs: now + auth.settings.mcpRefreshTokenTtlSeconds * 1000,
  });
  return oauthJson({
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: accessTtl,
    refresh_token: refreshToken,
  });
}
