import { consentPage, escapeHtml, redirectWith } from "../../fake-kit/browser-answers.ts";
import type { ClientRegistration } from "./oauth-store.ts";
import type { RequestContext } from "../../fake-kit/router.ts";
import type { GoogleFakeState } from "./state.ts";

/** One-shot control over the next consent decision (`setNextAuthorization`). */
export interface AuthorizationOverride {
  /** The user clicks "Cancel": redirect with `error=access_denied`. */
  deny?: boolean;
  /** Redirect with this `error` instead (e.g. "server_error", "invalid_scope"). */
  error?: string;
  /** This user consents, whatever `login_hint` says. */
  user?: string;
  /** The user unticks some scopes (granular consent): grant only these. */
  grantedScopes?: string[];
}

interface AuthorizationRequest {
  params: URLSearchParams;
  client: ClientRegistration;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: string | undefined;
  offline: boolean;
  includeGrantedScopes: boolean;
  loginHint: string | undefined;
  nonce: string | undefined;
  promptNone: boolean;
}

/** GET /o/oauth2/v2/auth: auto-approves, or renders a consent page when `interactive`. */
export function authorizeRoute(ctx: RequestContext, up: GoogleFakeState): Response {
  const parsed = parseAuthorizationRequest(ctx.query, up);
  if (parsed instanceof Response) return parsed;
  const email = parsed.loginHint ?? up.options.defaultUser;
  if (parsed.promptNone) {
    // prompt=none may not show UI: it succeeds only if everything asked for was granted before.
    const granted = up.oauth.granted(parsed.client.clientId, email.toLowerCase());
    if (!parsed.scopes.every((s) => granted.includes(s))) {
      return redirectWith(parsed.redirectUri, { error: "consent_required", state: parsed.state });
    }
    return decide(parsed, up, email, "allow");
  }
  if (up.options.interactive) return consentPageOf(parsed, email);
  return decide(parsed, up, email, "allow");
}

/** POST /o/oauth2/v2/auth/approve: the consent page's form, carrying the original parameters. */
export async function approveRoute(ctx: RequestContext, up: GoogleFakeState): Promise<Response> {
  const form = new URLSearchParams(await ctx.request.text());
  const parsed = parseAuthorizationRequest(form, up);
  if (parsed instanceof Response) return parsed;
  const email = form.get("login_email") || parsed.loginHint || up.options.defaultUser;
  return decide(parsed, up, email, form.get("decision") === "deny" ? "deny" : "allow");
}

/**
 * Mirrors Google: problems with the client or redirect URI are shown to the user as an error page,
 * never redirected, because the redirect target cannot be trusted yet.
 */
function parseAuthorizationRequest(params: URLSearchParams, up: GoogleFakeState): AuthorizationRequest | Response {
  const client = up.oauth.clients.get(params.get("client_id") ?? "");
  if (!client) return errorPage(401, "invalid_client", "The OAuth client was not found.");
  const redirectUri = params.get("redirect_uri");
  if (!redirectUri) return errorPage(400, "invalid_request", "Missing required parameter: redirect_uri");
  if (!URL.canParse(redirectUri))
    return errorPage(400, "invalid_request", `Invalid parameter value for redirect_uri: ${redirectUri}`);
  if (client.redirectUris && !client.redirectUris.includes(redirectUri)) {
    return errorPage(400, "redirect_uri_mismatch", `redirect_uri=${redirectUri} is not registered for this client.`);
  }
  const responseType = params.get("response_type");
  if (responseType !== "code")
    return errorPage(400, "unsupported_response_type", `Unsupported response_type: ${responseType ?? ""}`);
  const scopes = (params.get("scope") ?? "").split(/\s+/).filter(Boolean);
  if (scopes.length === 0) return errorPage(400, "invalid_request", "Missing required parameter: scope");
  const method = params.get("code_challenge_method") ?? undefined;
  if (method !== undefined && method !== "S256" && method !== "plain") {
    return errorPage(400, "invalid_request", `Invalid code_challenge_method: ${method}`);
  }
  const accessType = params.get("access_type") ?? "online";
  if (accessType !== "online" && accessType !== "offline") {
    return errorPage(400, "invalid_request", `Invalid access_type: ${accessType}`);
  }
  const codeChallenge = params.get("code_challenge") ?? undefined;
  return {
    params,
    client,
    redirectUri,
    scopes,
    state: params.get("state") ?? undefined,
    codeChallenge,
    codeChallengeMethod: codeChallenge ? (method ?? "plain") : undefined,
    offline: accessType === "offline",
    includeGrantedScopes: params.get("include_granted_scopes") === "true",
    loginHint: params.get("login_hint") || undefined,
    nonce: params.get("nonce") ?? undefined,
    promptNone: params.get("prompt") === "none",
  };
}

function decide(req: AuthorizationRequest, up: GoogleFakeState, email: string, decision: "allow" | "deny"): Response {
  const override = up.nextAuthorization;
  up.nextAuthorization = undefined;
  if (override?.deny || decision === "deny")
    return redirectWith(req.redirectUri, { error: "access_denied", state: req.state });
  if (override?.error) return redirectWith(req.redirectUri, { error: override.error, state: req.state });

  const user = up.oauth.ensureUser(override?.user ?? email);
  const consented = override?.grantedScopes ?? req.scopes;
  const everything = up.oauth.grant(req.client.clientId, user.email, consented);
  const scopes = req.includeGrantedScopes ? everything : consented;
  const code = up.oauth.issueCode({
    clientId: req.client.clientId,
    redirectUri: req.redirectUri,
    email: user.email,
    scopes,
    codeChallenge: req.codeChallenge,
    codeChallengeMethod: req.codeChallengeMethod,
    offline: req.offline,
    nonce: req.nonce,
  });
  return redirectWith(req.redirectUri, { state: req.state, code: code.code, scope: scopes.join(" ") });
}

function consentPageOf(req: AuthorizationRequest, email: string): Response {
  return consentPage({
    title: "Sign in - Fake Google Accounts",
    heading: `${req.client.clientId} wants to access your account`,
    scopes: req.scopes,
    action: "/o/oauth2/v2/auth/approve",
    params: req.params,
    email,
    decisions: { deny: "deny", allow: "allow", allowLabel: "Allow" },
  });
}

function errorPage(status: number, error: string, description: string): Response {
  const html = `<!doctype html><html><head><title>Error ${status}: ${escapeHtml(error)}</title></head>
<body><h1>Access blocked: authorization error</h1><p id="error">Error ${status}: ${escapeHtml(error)}</p>
<p id="error-description">${escapeHtml(description)}</p></body></html>`;
  return new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8" } });
}
