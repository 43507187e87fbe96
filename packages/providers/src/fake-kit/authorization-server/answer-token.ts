import { pkceMatches } from "../pkce.ts";
import {
  type AuthorizationState,
  issueTokens,
  newRefreshToken,
  oauthError,
  type SeenTokenRequest,
} from "./authorization-state.ts";

const SECRET_PARAMS = new Set(["client_secret", "code", "refresh_token", "code_verifier"]);

/** `POST …/token` (or the refresh path): checks the client, then spends the grant the request names. */
export async function answerToken(state: AuthorizationState, req: Request, path: string): Promise<Response> {
  const { behaviour } = state;
  const params = Object.fromEntries(new URLSearchParams(await req.text()));
  const client = clientOf(req, params);
  const grantType = params.grant_type ?? "";
  const seen = Object.fromEntries(Object.entries(params).filter(([k]) => !SECRET_PARAMS.has(k)));
  state.tokenRequests.push({
    grantType,
    clientAuthenticatedBy: client.by,
    params: seen,
    refreshToken: params.refresh_token ?? "",
    path,
  });
  const wanted = behaviour.clientAuthentication === "client_secret_basic" ? "basic" : "post";
  if (client.by !== wanted || client.id !== behaviour.clientId || client.secret !== behaviour.clientSecret) {
    return oauthError(
      behaviour,
      401,
      "invalid_client",
      `client authentication failed (expected ${behaviour.clientAuthentication})`,
    );
  }
  const atRefreshPath = behaviour.refreshPath !== null && path.endsWith(behaviour.refreshPath);
  if (behaviour.refreshPath !== null && (grantType === "refresh_token") !== atRefreshPath) {
    const where = atRefreshPath
      ? "only refresh tokens are spent here"
      : `refresh tokens are spent at ${behaviour.refreshPath}`;
    return oauthError(behaviour, 400, "unsupported_grant_type", where);
  }
  for (const [k, v] of Object.entries(behaviour.requiredTokenParams)) {
    if (params[k] !== v) return oauthError(behaviour, 400, "invalid_request", `${k} must be ${v}`);
  }
  if (grantType === "authorization_code") return exchangeCode(state, params);
  if (grantType === "refresh_token") return spendRefreshToken(state, params);
  if (grantType === "client_credentials") return issueTokens(state, params.scope ?? "", null);
  return oauthError(behaviour, 400, "unsupported_grant_type", grantType);
}

/** How the client authenticated (HTTP Basic, or `client_secret` in the body), and as whom. */
function clientOf(
  req: Request,
  params: Record<string, string>,
): { by: SeenTokenRequest["clientAuthenticatedBy"]; id: string; secret: string } {
  const basic = req.headers.get("authorization");
  if (basic?.startsWith("Basic ")) {
    const [u = "", pw = ""] = Buffer.from(basic.slice(6), "base64").toString("utf8").split(":");
    return {
      by: "basic",
      id: decodeURIComponent(u.replace(/\+/g, " ")),
      secret: decodeURIComponent(pw.replace(/\+/g, " ")),
    };
  }
  if (params.client_secret !== undefined)
    return { by: "post", id: params.client_id ?? "", secret: params.client_secret };
  return { by: "none", id: "", secret: "" };
}

/** The authorization-code grant: the code is spent once, for its redirect URI, with its PKCE verifier. */
function exchangeCode(state: AuthorizationState, params: Record<string, string>): Response {
  const { behaviour } = state;
  const grant = state.codes.get(params.code ?? "");
  state.codes.delete(params.code ?? "");
  if (!grant || grant.redirectUri !== params.redirect_uri)
    return oauthError(behaviour, 400, "invalid_grant", "bad code");
  if (grant.challenge !== "" && !pkceMatches(params.code_verifier ?? "", grant.challenge, grant.method)) {
    return oauthError(behaviour, 400, "invalid_grant", "code_verifier does not match");
  }
  if (grant.challenge === "" && params.code_verifier !== undefined && behaviour.pkce === "refused") {
    return oauthError(behaviour, 400, "invalid_request", "PKCE is not supported");
  }
  return issueTokens(state, grant.scope, newRefreshToken(state, grant.scope));
}

/** The refresh grant: rotates (with an optional grace for the retired token) and may lose its answer. */
function spendRefreshToken(state: AuthorizationState, params: Record<string, string>): Response {
  const { behaviour, refresh, successors } = state;
  const used = params.refresh_token ?? "";
  const grant = refresh.get(used);
  if (!grant) return oauthError(behaviour, 400, "invalid_grant", "refresh token revoked, expired or retired");
  if (behaviour.refreshNeedsScope && !params.scope)
    return oauthError(behaviour, 400, "invalid_scope", "scope is required");
  // The first use of a successor ends its predecessor's grace.
  for (const [old, next] of successors)
    if (next === used) {
      refresh.delete(old);
      successors.delete(old);
    }
  if (!behaviour.rotateRefreshTokens) return issueTokens(state, grant.scope, null);
  const next = newRefreshToken(state, grant.scope);
  if (behaviour.retiredRefreshTokenGrace) {
    refresh.set(used, { ...grant, state: "grace" });
    successors.set(used, next);
  } else refresh.delete(used);
  const lost = behaviour.loseNextRefreshAnswer;
  behaviour.loseNextRefreshAnswer = null;
  if (lost === "html_502")
    return new Response("<html><body>Bad gateway</body></html>", {
      status: 502,
      headers: { "content-type": "text/html" },
    });
  if (lost === "json_500") return Response.json({ error: "server_error" }, { status: 500 });
  return issueTokens(state, grant.scope, next);
}
