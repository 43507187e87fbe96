import { authenticate } from "./bearer-auth.ts";
import { oauthError } from "./google-errors.ts";
import type { RequestContext } from "../../fake-kit/router.ts";
import type { GoogleFakeState } from "./state.ts";

/** GET /oauth2/v3/userinfo: who the access token belongs to. */
export function userinfoRoute(ctx: RequestContext, up: GoogleFakeState): Response {
  const token = authenticate(ctx.request, up);
  if (token instanceof Response) return token;
  const user = up.oauth.ensureUser(token.email);
  return Response.json({ sub: user.sub, email: user.email, email_verified: user.emailVerified, name: user.name });
}

/** GET /oauth2/v3/certs: the key that verifies the fake's ID tokens. */
export async function certsRoute(_ctx: RequestContext, up: GoogleFakeState): Promise<Response> {
  return Response.json(await up.idTokens.jwks());
}

/** POST /revoke?token=: revoking a refresh token also kills the access tokens of that grant, as Google does. */
export async function revokeRoute(ctx: RequestContext, up: GoogleFakeState): Promise<Response> {
  const token = ctx.query.get("token") ?? new URLSearchParams(await ctx.request.text()).get("token") ?? "";
  const refresh = up.oauth.refreshTokens.get(token);
  const access = up.oauth.accessTokens.get(token);
  const record = refresh ?? access;
  if (!record || record.revoked) return oauthError(400, "invalid_token", "Token expired or revoked");
  record.revoked = true;
  if (refresh) {
    for (const other of up.oauth.accessTokens.values()) {
      if (other.email === refresh.email && other.clientId === refresh.clientId) other.revoked = true;
    }
  }
  return Response.json({});
}
