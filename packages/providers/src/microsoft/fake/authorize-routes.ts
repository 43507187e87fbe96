import { consentPage, redirectWith } from "../../fake-kit/browser-answers.ts";
import { decodeSegment, type RequestContext } from "../../fake-kit/router.ts";
import { signInErrorPage } from "./errors.ts";
import type { MicrosoftClient } from "./identity-store.ts";
import type { MicrosoftFakeState } from "./state.ts";

/** `common`, `organizations`, `consumers`, a tenant id or a domain (v2-protocols#endpoints). */
const TENANT = /^[A-Za-z0-9][A-Za-z0-9.-]{0,254}$/;

interface AuthorizationRequest {
  params: URLSearchParams;
  tenant: string;
  client: MicrosoftClient;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: string | undefined;
  loginHint: string | undefined;
}

/**
 * GET /{tenant}/oauth2/v2.0/authorize
 * (https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow#request-an-authorization-code):
 * signs the user in and consents at once, or shows a page when `interactive`.
 */
export function authorizeRoute(ctx: RequestContext, up: MicrosoftFakeState): Response {
  const parsed = parseAuthorization(ctx.params[0] ?? "", ctx.query, up);
  if (parsed instanceof Response) return parsed;
  const email = parsed.loginHint ?? up.defaultUser;
  if (up.interactive) return consentPageOf(parsed, email);
  return decide(parsed, up, email, "accept");
}

/** POST /{tenant}/oauth2/v2.0/authorize/approve: the page's form, carrying the original parameters. */
export async function approveRoute(ctx: RequestContext, up: MicrosoftFakeState): Promise<Response> {
  const form = new URLSearchParams(await ctx.request.text());
  const parsed = parseAuthorization(ctx.params[0] ?? "", form, up);
  if (parsed instanceof Response) return parsed;
  const email = form.get("login_email") || parsed.loginHint || up.defaultUser;
  return decide(parsed, up, email, form.get("decision") === "cancel" ? "cancel" : "accept");
}

/** Problems with the tenant, client or redirect URI are shown on the page, never redirected. */
function parseAuthorization(
  rawTenant: string,
  params: URLSearchParams,
  up: MicrosoftFakeState,
): AuthorizationRequest | Response {
  const tenant = decodeSegment(rawTenant) ?? "";
  if (!TENANT.test(tenant)) return signInErrorPage(400, 90002, `Tenant '${tenant}' not found.`);
  const clientId = params.get("client_id") ?? "";
  const client = up.identity.clients.get(clientId);
  if (!client) {
    return signInErrorPage(
      400,
      700016,
      `Application with identifier '${clientId}' was not found in the directory '${tenant}'.`,
    );
  }
  const redirectUri = params.get("redirect_uri") ?? "";
  if (!URL.canParse(redirectUri) || (client.redirectUris && !client.redirectUris.includes(redirectUri))) {
    return signInErrorPage(
      400,
      50011,
      `The redirect URI '${redirectUri}' specified in the request does not match the redirect URIs configured for the application '${clientId}'.`,
    );
  }
  if (params.get("response_type") !== "code") {
    return signInErrorPage(400, 900144, "The request body must contain the following parameter: 'response_type'.");
  }
  // The fake returns the code in the query only (Junction asks for response_mode=query).
  const mode = params.get("response_mode") ?? "query";
  if (mode !== "query") return signInErrorPage(400, 900144, `The fake supports response_mode=query only, not ${mode}.`);
  const scopes = (params.get("scope") ?? "").split(/\s+/).filter(Boolean);
  if (scopes.length === 0) {
    return signInErrorPage(400, 900144, "The request body must contain the following parameter: 'scope'.");
  }
  const codeChallenge = params.get("code_challenge") || undefined;
  const method = params.get("code_challenge_method") || undefined;
  if (method !== undefined && method !== "S256" && method !== "plain") {
    return signInErrorPage(400, 501491, `Invalid code_challenge_method: ${method}.`);
  }
  return {
    params,
    tenant,
    client,
    redirectUri,
    scopes,
    state: params.get("state") ?? undefined,
    codeChallenge,
    // "plain" when the method is left out, as the flow's docs say.
    codeChallengeMethod: codeChallenge ? (method ?? "plain") : undefined,
    loginHint: params.get("login_hint") || undefined,
  };
}

function decide(req: AuthorizationRequest, up: MicrosoftFakeState, email: string, decision: "accept" | "cancel") {
  if (decision === "cancel") {
    return redirectWith(req.redirectUri, {
      error: "access_denied",
      error_subcode: "cancel",
      error_description: "AADSTS65004: User declined to consent to access the app.",
      state: req.state,
    });
  }
  const user = up.identity.ensureUser(email);
  const code = up.identity.issueCode({
    clientId: req.client.clientId,
    redirectUri: req.redirectUri,
    email: user.mail,
    scopes: req.scopes,
    tenant: req.tenant,
    codeChallenge: req.codeChallenge,
    codeChallengeMethod: req.codeChallengeMethod,
  });
  up.changes.changed();
  return redirectWith(req.redirectUri, { code: code.code, state: req.state, session_state: crypto.randomUUID() });
}

function consentPageOf(req: AuthorizationRequest, email: string): Response {
  return consentPage({
    title: "Sign in to your account - Fake Microsoft",
    heading: `Permissions requested: ${req.client.clientId}`,
    scopes: req.scopes,
    action: `/${encodeURIComponent(req.tenant)}/oauth2/v2.0/authorize/approve`,
    params: req.params,
    email,
    decisions: { deny: "cancel", allow: "accept", allowLabel: "Accept" },
  });
}
