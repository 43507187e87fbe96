import { pkceMatches } from "../../fake-kit/pkce.ts";
import { decodeSegment, type RequestContext } from "../../fake-kit/router.ts";
import { aadError } from "./errors.ts";
import type { MicrosoftClient, MicrosoftToken } from "./identity-store.ts";
import type { MicrosoftFakeState } from "./state.ts";

type Grant = Omit<MicrosoftToken, "token" | "expiresAt" | "revoked">;

/**
 * POST /{tenant}/oauth2/v2.0/token: `authorization_code` (with the PKCE verifier when the authorization
 * sent a challenge) and `refresh_token`, the client authenticated by `client_secret` in the body or HTTP
 * Basic (https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow#redeem-a-code-for-an-access-token,
 * #refresh-the-access-token). A refresh answers a new refresh token too; the old one stays valid.
 */
export async function tokenRoute(ctx: RequestContext, up: MicrosoftFakeState): Promise<Response> {
  const tenant = decodeSegment(ctx.params[0] ?? "") ?? "";
  const form = new URLSearchParams(await ctx.request.text());
  const grantType = form.get("grant_type") ?? "";
  const fail = (status: number, error: string, aadsts: number, description: string) => {
    up.tokenRequests.push({ grantType, tenant, clientId: form.get("client_id") ?? "", ok: false });
    up.changes.changed();
    return aadError(status, error, aadsts, description, up.now());
  };
  const client = authenticateClient(ctx.request, form, up);
  if (client === "unknown") {
    return fail(
      400,
      "unauthorized_client",
      700016,
      `Application with identifier '${form.get("client_id") ?? ""}' was not found in the directory '${tenant}'.`,
    );
  }
  if (client === "bad-secret") {
    return fail(401, "invalid_client", 7000215, "Invalid client secret provided.");
  }
  let grant: Grant;
  if (grantType === "authorization_code") {
    const code = up.identity.redeem(form.get("code") ?? "");
    if (code === "expired") {
      return fail(400, "invalid_grant", 70008, "The provided authorization code or refresh token has expired.");
    }
    if (code === "used") return fail(400, "invalid_grant", 54005, "OAuth2 Authorization code was already redeemed.");
    if (code === "unknown" || code.clientId !== client.clientId) {
      return fail(400, "invalid_grant", 9002313, "Invalid request. Request is malformed or invalid.");
    }
    if (form.get("redirect_uri") !== code.redirectUri) {
      return fail(400, "invalid_grant", 50011, "The redirect URI does not match the one the code was issued to.");
    }
    const verifier = form.get("code_verifier");
    if (code.codeChallenge && (!verifier || !pkceMatches(verifier, code.codeChallenge, code.codeChallengeMethod))) {
      return fail(
        400,
        "invalid_grant",
        501481,
        "The Code_Verifier does not match the code_challenge supplied in the authorization request.",
      );
    }
    grant = { email: code.email, clientId: client.clientId, scopes: code.scopes, tenant };
  } else if (grantType === "refresh_token") {
    const refresh = up.identity.refreshTokens.get(form.get("refresh_token") ?? "");
    if (!refresh || refresh.revoked || refresh.clientId !== client.clientId) {
      return fail(400, "invalid_grant", 70000, "Provided grant is invalid or malformed.");
    }
    grant = { email: refresh.email, clientId: client.clientId, scopes: refresh.scopes, tenant };
  } else {
    return fail(400, "unsupported_grant_type", 70003, `The app requested an unsupported grant type '${grantType}'.`);
  }
  const ttl = up.accessTokenTtlSeconds;
  const access = up.identity.issueAccessToken(grant, ttl);
  const refresh = grant.scopes.includes("offline_access") ? up.identity.issueRefreshToken(grant) : undefined;
  up.tokenRequests.push({ grantType, tenant, clientId: client.clientId, ok: true });
  up.changes.changed();
  return Response.json({
    token_type: "Bearer",
    scope: grant.scopes.filter((s) => s !== "offline_access").join(" "),
    expires_in: ttl,
    ext_expires_in: ttl,
    access_token: access.token,
    ...(refresh ? { refresh_token: refresh.token } : {}),
  });
}

function authenticateClient(
  request: Request,
  form: URLSearchParams,
  up: MicrosoftFakeState,
): MicrosoftClient | "unknown" | "bad-secret" {
  let clientId = form.get("client_id") ?? "";
  let secret = form.get("client_secret") ?? "";
  const basic = /^Basic\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (basic) {
    const [id = "", pass = ""] = Buffer.from(basic, "base64").toString("utf8").split(":");
    clientId = decodeURIComponent(id);
    secret = decodeURIComponent(pass);
  }
  const client = up.identity.clients.get(clientId);
  if (!client) return "unknown";
  return secret === client.clientSecret ? client : "bad-secret";
}
