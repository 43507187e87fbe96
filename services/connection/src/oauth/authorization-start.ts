import type { StartAuthorizationRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import { randomToken, sha256Hex } from "@junction/platform";
import { buildAuthorizationUrl, type ProviderAdapter } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { secretContexts } from "../secret-contexts.ts";
import type { IntegrationRecord, OAuthStateRecord } from "../store/records.ts";
import {
  passedAuthorizationParams,
  resolveConnectSession,
  sessionConfigFor,
  sessionTarget,
} from "./connect-sessions.ts";
import { claimAuthSocket } from "./auth-socket-claim.ts";
import { resolveOAuthClient } from "./oauth-client.ts";
import { newPkce } from "./pkce.ts";

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
  // Bound first: every later refusal then belongs to this session's attempt, and may be told to its socket.
  const wsClientId = await claimAuthSocket(ctx, req.wsClientId, session.id);
  const key = req.providerConfigKey;
  const { integ, template, connectionId, existingConfig } = await sessionTarget(ctx, session, key);
  if (template.authMode !== "OAUTH2") throw errors.notAnAuthorizationFlow(key, template.name, template.authMode);
  const defaults = sessionConfigFor(session, key);
  const typed = typedConnectFields(template, req.connectionConfig);
  // A connection's placeholders ({subdomain}, {shop}) come from the form, the session's connection config,
  // else the connection's.
  const client = resolveOAuthClient(ctx, integ, template, integ.useTestCredentials, {
    ...existingConfig,
    ...defaults.connectionConfig,
    ...typed,
  });
  const scopes = requestedScopes(integ, template, defaults.userScopes, req.extraScopes);
  const callback = redirectUri(ctx.baseUrl);
  const { state, codeChallenge } = await storeState(ctx, {
    environmentId: session.environmentId,
    sessionId: session.id,
    providerConfigKey: key,
    connectionId,
    redirectUri: callback,
    scopes,
    testCredentials: client.testCredentials,
    connectionConfig: typed,
    ...(isOrigin(req.openerOrigin) ? { openerOrigin: req.openerOrigin } : {}),
    ...(wsClientId ? { wsClientId } : {}),
  });
  const url = buildAuthorizationUrl(template, {
    authorizationUrl: client.authorizationUrl,
    clientId: client.clientId,
    redirectUri: callback,
    scopes,
    state,
    codeChallenge,
    passedParams: passedAuthorizationParams(defaults),
  });
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

/** What the user typed on the connect page's form: the definition's connect fields only, non-empty. */
function typedConnectFields(
  template: ProviderAdapter,
  connectionConfig: Readonly<Record<string, string>>,
): Record<string, string> {
  const typed: Record<string, string> = {};
  for (const field of template.connectFields) {
    const value = (connectionConfig[field.key] ?? "").trim();
    if (value !== "") typed[field.key] = value;
  }
  return typed;
}

/**
 * The scopes asked for: the integration's, the session's, then the caller's extra ones (each one scope, no
 * spaces), without repeats. A provider that takes scopes in the authorization request (its definition
 * suggests some) needs at least one.
 */
function requestedScopes(
  integ: IntegrationRecord,
  template: ProviderAdapter,
  sessionScopes: readonly string[],
  extraScopes: readonly string[],
): string[] {
  for (const scope of extraScopes) {
    if (!/^\S+$/.test(scope)) throw errors.invalidField("user_scope", "must not hold empty or spaced scopes");
  }
  const scopes = [...new Set([...integ.scopes, ...sessionScopes, ...extraScopes])];
  if (scopes.length === 0 && template.defaultScopes.length > 0) {
    throw errors.invalidField(
      "scopes",
      `integration "${integ.uniqueKey}" requests no scopes; provider "${template.name}" suggests ${template.defaultScopes.join(", ")}`,
    );
  }
  return scopes;
}

/**
 * Stores a new single-use state (its hash, never the state itself) with the PKCE verifier sealed to it,
 * for the state TTL; answers the state and the PKCE challenge to send upstream.
 */
async function storeState(
  ctx: ConnectionServiceContext,
  attempt: Omit<OAuthStateRecord, "stateHash" | "codeVerifierEnc" | "createdAt" | "expiresAt" | "consumedAt">,
): Promise<{ state: string; codeChallenge: string }> {
  const now = ctx.clock.now();
  const state = randomToken(32);
  const pkce = newPkce();
  const stateHash = sha256Hex(state);
  await ctx.store.insertOAuthState({
    ...attempt,
    stateHash,
    codeVerifierEnc: ctx.encryptor.encrypt(pkce.verifier, secretContexts.codeVerifier(stateHash)),
    createdAt: now,
    expiresAt: now + ctx.oauth.authorizationStateTtlMs,
    consumedAt: null,
  });
  return { state, codeChallenge: pkce.challenge };
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
