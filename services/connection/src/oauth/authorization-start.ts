import type { StartAuthorizationRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import { randomToken, sha256Hex } from "@junction/platform";
import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { secretContexts } from "../secret-contexts.ts";
import {
  passedAuthorizationParams,
  resolveConnectSession,
  sessionConfigFor,
  sessionTarget,
} from "./connect-sessions.ts";
import { resolveOAuthClient } from "./oauth-client.ts";
import { newPkce } from "./pkce.ts";

/** How a definition's scope separator is written in the `scope` parameter (before URL encoding). */
export const SCOPE_SEPARATORS = { space: " ", comma: ",", plus: "+" } as const;

/** {base_url}/oauth/callback: the one redirect URI to register upstream (spec: Authentication 2). */
export function redirectUri(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/oauth/callback`;
}

/**
 * Starts an authorization for a connect session: stores a single-use state bound to the session, the
 * integration and the connection it will create (or re-authorize), with a PKCE verifier, and returns
 * the upstream authorization URL (spec: Authentication 2; the template adds access_type and prompt).
 */
export async function startAuthorization(
  ctx: ConnectionServiceContext,
  req: StartAuthorizationRequest,
): Promise<{ authorizationUrl: string }> {
  const session = await resolveConnectSession(ctx, req.connectSessionToken);
  const key = req.providerConfigKey;
  const { integ, template, connectionId, existingConfig } = await sessionTarget(ctx, session, key);
  if (template.authMode !== "OAUTH2") throw errors.notAnAuthorizationFlow(key, template.name, template.authMode);
  const defaults = sessionConfigFor(session, key);
  // A connection's placeholders ({subdomain}, {shop}) come from the session's connection config, else the connection's.
  const client = resolveOAuthClient(ctx, integ, template, integ.useTestCredentials, {
    ...existingConfig,
    ...defaults.connectionConfig,
  });
  for (const scope of req.extraScopes) {
    if (!/^\S+$/.test(scope)) throw errors.invalidField("user_scope", "must not hold empty or spaced scopes");
  }
  const scopes = [...new Set([...integ.scopes, ...defaults.userScopes, ...req.extraScopes])];
  if (scopes.length === 0) throw errors.invalidField("scopes", `integration "${key}" requests no scopes`);

  const now = ctx.clock.now();
  const state = randomToken(32);
  const pkce = newPkce();
  const callback = redirectUri(ctx.baseUrl);
  const stateHash = sha256Hex(state);
  await ctx.store.insertOAuthState({
    stateHash,
    environmentId: session.environmentId,
    sessionId: session.id,
    providerConfigKey: key,
    connectionId,
    codeVerifierEnc: ctx.encryptor.encrypt(pkce.verifier, secretContexts.codeVerifier(stateHash)),
    redirectUri: callback,
    scopes,
    testCredentials: client.testCredentials,
    createdAt: now,
    expiresAt: now + ctx.oauth.authorizationStateTtlMs,
    consumedAt: null,
    ...(isOrigin(req.openerOrigin) ? { openerOrigin: req.openerOrigin } : {}),
  });

  const url = new URL(client.authorizationUrl);
  for (const [name, value] of Object.entries(template.authorizationParams)) url.searchParams.set(name, value);
  for (const [name, value] of passedAuthorizationParams(defaults)) url.searchParams.set(name, value);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", client.clientId);
  url.searchParams.set("redirect_uri", callback);
  url.searchParams.set("scope", scopes.join(SCOPE_SEPARATORS[template.scopeSeparator]));
  url.searchParams.set("state", state);
  // RFC 7636: the challenge is sent unless the provider refuses PKCE (an unknown parameter is an error there).
  if (template.pkce !== "refused") {
    url.searchParams.set("code_challenge", pkce.challenge);
    url.searchParams.set("code_challenge_method", "S256");
  }
  // spec: Authentication 5, incremental authorization: scopes granted before are kept.
  if (req.includeGrantedScopes) url.searchParams.set("include_granted_scopes", "true");
  if (req.loginHint) url.searchParams.set("login_hint", req.loginHint);
  ctx.logger.info("authorization started", {
    integration: key,
    connectionId,
    reauthorization: session.reconnect !== null,
    testCredentials: client.testCredentials,
  });
  return { authorizationUrl: url.toString() };
}

/** Whether `value` is exactly an http(s) origin (scheme://host[:port], nothing else). */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value;
  } catch {
    return false;
  }
}
