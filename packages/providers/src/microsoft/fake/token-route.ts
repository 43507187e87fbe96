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
  const grant =
    grantType === "authorization_code"
      ? codeGrant(form, up, client.clientId, tenant)
      : grantType === "refresh_token"
        ? refreshGrant(form, up, client.clientId, tenant)
        : refusal(400, "unsupported_grant_type", 70003, `The app requested an unsupported grant type '${grantType}'.`);
  if (Array.isArray(grant)) return fail(...grant);
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

/** A refused token request: status, AAD error, AADSTS number, description. */
type Refusal = [status: number, error: string, aadsts: number, description: string];

function refusal(...r: Refusal): Refusal {
  return r;
}

/** The grant of an authorization code: unexpired, unused, the client's, its redirect URI and PKCE verifier. */
function codeGrant(form: URLSearchParams, up: MicrosoftFakeState, clientId: string, tenant: string): Grant | Refusal {
  const code = up.identity.redeem(form.get("code") ?? "");
  if (code === "expired") {
    return refusal(400, "invalid_grant", 70008, "The provided authorization code or refresh token has expired.");
  }
  if (code === "used") return refusal(400, "invalid_grant", 54005, "OAuth2 Authorization code was already redeemed.");
  if (code === "unknown" || code.clientId !== clientId) {
    return refusal(400, "invalid_grant", 9002313, "Invalid request. Request is malformed or invalid.");
  }
  if (form.get("redirect_uri") !== code.redirectUri) {
    return refusal(400, "invalid_grant", 50011, "The redirect URI does not match the one the code was issued to.");
  }
  const verifier = form.get("code_verifier");
  if (code.codeChallenge && (!verifier || !pkceMatches(verifier, code.codeChallenge, code.codeChallengeMethod))) {
    return refusal(
      400,
      "invalid_grant",
      501481,
      "The Code_Verifier does not match the code_challenge supplied in the authorization request.",
    );
  }
  return { email: code.email, clientId, scopes: code.scopes, tenant };
}

/** The grant of a refresh token: known, not revoked, the client's. */
function refreshGrant(
  form: URLSearchParams,
  up: MicrosoftFakeState,
  clientId: string,
  tenant: string,
): Grant | Refusal {
  const refresh = up.identity.refreshTokens.get(form.get("refresh_token") ?? "");
  if (!refresh || refresh.revoked || refresh.clientId !== clientId) {
    return refusal(400, "invalid_grant", 70000, "Provided grant is invalid or malformed.");
  }
  return { email: refresh.email, clientId, scopes: refresh.scopes, tenant };
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
