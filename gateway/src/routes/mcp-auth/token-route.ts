import { createHash } from "node:crypto";
import { constantTimeEqual, readTextLimited } from "@junction/platform";
import { z } from "zod";
import type { McpAuth } from "../../mcp-auth/mcp-auth.ts";
import { newSecret, type TokenGrant } from "../../mcp-auth/mcp-auth-store.ts";
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
      const type = (req.headers.get("content-type") ?? "").toLowerCase();
      if (!type.startsWith("application/x-www-form-urlencoded")) {
        return oauthError(400, "invalid_request", "Send the request as application/x-www-form-urlencoded.");
      }
      const tooLarge = new Error("too large");
      let form: URLSearchParams;
      try {
        form = new URLSearchParams(await readTextLimited(req.body, MAX_BODY_BYTES, () => tooLarge));
      } catch (err) {
        if (err === tooLarge) return oauthError(413, "invalid_request", `The body exceeds ${MAX_BODY_BYTES} bytes.`);
        throw err;
      }
      const grantType = form.get("grant_type");
      if (grantType === "authorization_code") return exchangeCode(auth, form);
      if (grantType === "refresh_token") return refresh(auth, form);
      return oauthError(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token.");
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

async function exchangeCode(auth: McpAuth, form: URLSearchParams): Promise<Response> {
  const code = await auth.store.takeCode(form.get("code") ?? "");
  const invalid = (why: string) => oauthError(400, "invalid_grant", why);
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
    return oauthError(400, "invalid_target", "resource is not the one the user authorized.");
  }
  return issue(auth, code);
}

async function refresh(auth: McpAuth, form: URLSearchParams): Promise<Response> {
  const grant = await auth.store.takeRefreshToken(form.get("refresh_token") ?? "");
  if (!grant || grant.expiresAtMs <= auth.now()) {
    return oauthError(400, "invalid_grant", "The refresh token is unknown, expired, revoked or already used.");
  }
  if (form.get("client_id") !== grant.clientId) {
    return oauthError(400, "invalid_grant", "The refresh token was issued to another client.");
  }
  const resource = form.get("resource");
  if (resource !== null && resource !== grant.resource) {
    return oauthError(400, "invalid_target", "resource is not the one the user authorized.");
  }
  return issue(auth, grant);
}

/** A new access token and refresh token for the grant's MCP URL, unless that URL was revoked since. */
async function issue(auth: McpAuth, grant: TokenGrant): Promise<Response> {
  const server = await auth.store.getServer(grant.serverId);
  if (!server || server.revokedAtMs !== undefined) {
    return oauthError(400, "invalid_grant", "The MCP URL was revoked.");
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
