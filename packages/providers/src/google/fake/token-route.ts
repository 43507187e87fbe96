import { delay } from "../../fake-kit/delay.ts";
import { oauthError } from "./google-errors.ts";
import { CODE_TTL_MS, type ClientRegistration, type FakeUser } from "./oauth-store.ts";
import { pkceMatches } from "../../fake-kit/pkce.ts";
import type { RequestContext } from "../../fake-kit/router.ts";
import type { TokenEndpointBehavior } from "./token-endpoint-control.ts";
import type { GoogleFakeState } from "./state.ts";

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

/** POST /token: authorization_code and refresh_token grants, with the failure switch applied first. */
export async function tokenRoute(ctx: RequestContext, up: GoogleFakeState): Promise<Response> {
  const control = up.tokenEndpoint;
  control.concurrency.inFlight += 1;
  control.concurrency.peak = Math.max(control.concurrency.peak, control.concurrency.inFlight);
  try {
    const params = await readTokenParams(ctx.request);
    const entry = control.record(params.get("grant_type") ?? "", up.now());
    up.changes.changed();
    if (control.delayMs > 0) await delay(control.delayMs, ctx.signal);
    const response = await answer(params, ctx, up, control.take());
    // A request whose client already gave up was never answered, whatever we would have said.
    if (!ctx.signal.aborted) entry.status = response.status;
    return response;
  } finally {
    control.concurrency.inFlight -= 1;
    up.changes.changed();
  }
}

async function answer(
  params: URLSearchParams,
  ctx: RequestContext,
  up: GoogleFakeState,
  behavior: TokenEndpointBehavior,
): Promise<Response> {
  // Canned failures short-circuit before any grant is processed, so a code survives a failed exchange.
  if (behavior === "html") {
    return new Response("<html><body><h1>502 Bad Gateway</h1></body></html>", {
      status: 502,
      headers: { "content-type": "text/html; charset=UTF-8" },
    });
  }
  if (behavior === "timeout") {
    await delay(Number.POSITIVE_INFINITY, ctx.signal);
    return new Response(null, { status: 504 });
  }
  if (typeof behavior === "object") {
    const isText = typeof behavior.body === "string";
    return new Response(isText ? (behavior.body as string) : JSON.stringify(behavior.body ?? {}), {
      status: behavior.status,
      headers: {
        "content-type": isText ? "text/plain; charset=utf-8" : "application/json; charset=utf-8",
        ...behavior.headers,
      },
    });
  }

  const client = authenticateClient(ctx.request, params, up);
  if (client instanceof Response) return client;
  const grantType = params.get("grant_type") ?? "";
  const result =
    grantType === "authorization_code"
      ? await exchangeCode(params, client, up)
      : grantType === "refresh_token"
        ? await refresh(params, client, up)
        : oauthError(400, "unsupported_grant_type", `Invalid grant_type: ${grantType}`);
  if (!(result instanceof Response)) {
    if (behavior === "no-expires-in") delete result.expires_in;
    return Response.json(result, { headers: NO_STORE });
  }
  return result;
}

interface TokenResponse {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  scope: string;
  token_type: "Bearer";
  id_token?: string;
}

async function exchangeCode(
  params: URLSearchParams,
  client: ClientRegistration,
  up: GoogleFakeState,
): Promise<TokenResponse | Response> {
  if (!params.get("code")) return oauthError(400, "invalid_request", "Missing required parameter: code");
  const code = up.oauth.codes.get(params.get("code") ?? "");
  if (!code || code.used || code.clientId !== client.clientId || code.issuedAt + CODE_TTL_MS <= up.now()) {
    return oauthError(400, "invalid_grant", "Bad Request");
  }
  if (params.get("redirect_uri") !== code.redirectUri) return oauthError(400, "redirect_uri_mismatch", "Bad Request");
  if (code.codeChallenge !== undefined) {
    const verifier = params.get("code_verifier");
    if (!verifier) return oauthError(400, "invalid_grant", "Missing code verifier.");
    if (!pkceMatches(verifier, code.codeChallenge, code.codeChallengeMethod)) {
      return oauthError(400, "invalid_grant", "Invalid code verifier.");
    }
  }
  code.used = true;
  const user = up.oauth.ensureUser(code.email);
  // Google issues a refresh token only for access_type=offline.
  const refreshToken = code.offline
    ? up.oauth.issueRefreshToken(user.email, client.clientId, code.scopes).token
    : undefined;
  return tokens(up, user, client, code.scopes, refreshToken, code.nonce);
}

async function refresh(
  params: URLSearchParams,
  client: ClientRegistration,
  up: GoogleFakeState,
): Promise<TokenResponse | Response> {
  if (!params.get("refresh_token"))
    return oauthError(400, "invalid_request", "Missing required parameter: refresh_token");
  const record = up.oauth.refreshTokens.get(params.get("refresh_token") ?? "");
  if (!record || record.clientId !== client.clientId) return oauthError(400, "invalid_grant", "Bad Request");
  const ttl = up.options.refreshTokenTtlSeconds;
  const expired = ttl !== undefined && record.issuedAt + ttl * 1000 <= up.now();
  if (record.revoked || expired) return oauthError(400, "invalid_grant", "Token has been expired or revoked.");
  let scopes = record.scopes;
  const narrowed = params.get("scope")?.split(/\s+/).filter(Boolean);
  if (narrowed && narrowed.length > 0) {
    if (narrowed.some((s) => !record.scopes.includes(s))) {
      return oauthError(400, "invalid_scope", "Some requested scopes were invalid.");
    }
    scopes = narrowed;
  }
  let rotated: string | undefined;
  if (up.options.rotateRefreshTokens) {
    record.revoked = true;
    rotated = up.oauth.issueRefreshToken(record.email, client.clientId, record.scopes).token;
  }
  return tokens(up, up.oauth.ensureUser(record.email), client, scopes, rotated, undefined);
}

async function tokens(
  up: GoogleFakeState,
  user: FakeUser,
  client: ClientRegistration,
  scopes: string[],
  refreshToken: string | undefined,
  nonce: string | undefined,
): Promise<TokenResponse> {
  const ttl = up.options.accessTokenTtlSeconds;
  const access = up.oauth.issueAccessToken(user.email, client.clientId, scopes, ttl);
  const idToken = scopes.includes("openid") ? await up.idTokens.sign(user, client.clientId, nonce) : undefined;
  return {
    access_token: access.token,
    expires_in: ttl,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    scope: scopes.join(" "),
    token_type: "Bearer",
    ...(idToken ? { id_token: idToken } : {}),
  };
}

/** Client credentials from HTTP Basic (RFC 6749 section 2.3.1, form-encoded parts) or the body. */
function authenticateClient(
  request: Request,
  params: URLSearchParams,
  up: GoogleFakeState,
): ClientRegistration | Response {
  let clientId = params.get("client_id") ?? "";
  let clientSecret = params.get("client_secret") ?? "";
  const basic = /^Basic\s+(.+)$/i.exec(request.headers.get("authorization") ?? "");
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    clientId = formDecode(decoded.slice(0, colon === -1 ? undefined : colon));
    clientSecret = colon === -1 ? "" : formDecode(decoded.slice(colon + 1));
  }
  const client = up.oauth.clients.get(clientId);
  if (!client) return oauthError(401, "invalid_client", "The OAuth client was not found.");
  if (client.clientSecret !== clientSecret) return oauthError(401, "invalid_client", "Unauthorized");
  return client;
}

function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}

/** Google accepts form-encoded bodies (the standard) and JSON. */
async function readTokenParams(request: Request): Promise<URLSearchParams> {
  const text = await request.text();
  if ((request.headers.get("content-type") ?? "").includes("application/json")) {
    try {
      return new URLSearchParams(
        Object.entries(JSON.parse(text) as Record<string, string>).map(([k, v]) => [k, String(v)]),
      );
    } catch {
      return new URLSearchParams();
    }
  }
  return new URLSearchParams(text);
}
