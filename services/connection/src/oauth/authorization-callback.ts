import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  AuthorizationOutcome,
  type CompleteAuthorizationRequest,
  type CompleteAuthorizationResponseSchema,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { JunctionError, sha256Hex } from "@junction/platform";
import { accountEmailReader } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import { openCredentials, type StoredCredentials } from "../credentials.ts";
import { secretContexts } from "../secret-contexts.ts";
import { emailAddressHash } from "../email-hash.ts";
import { isRefreshError } from "../refresh/credential-refresher.ts";
import { saveConnection } from "../save-connection.ts";
import type { ConnectionErrorRecord, ConnectSessionRecord } from "../store/records.ts";
import { enqueueAuthWebhook } from "./auth-webhook.ts";
import { sessionConfigFor } from "./connect-sessions.ts";
import { SCOPE_SEPARATORS } from "@junction/providers";
import { type CallbackFailure, describeExchangeFailure, stateProblem } from "./callback-messages.ts";
import { readConnectionConfigFields } from "./connection-config-fields.ts";
import { connectionBaseUrl, resolveOAuthClient } from "./oauth-client.ts";
import { requestToken } from "./token-client.ts";

export type CallbackAnswer = MessageInitShape<typeof CompleteAuthorizationResponseSchema>;

/** Recorded on a connection whose account email could not be read at authorization. */
export const EMAIL_HASH_UNAVAILABLE = "email_address_hash_unavailable";

/**
 * Completes an authorization at {base_url}/oauth/callback (spec: What the service does 3). The state
 * is checked and used up before anything else; every failure is an answer naming what went wrong,
 * and nothing is written to the connection unless the code was exchanged for tokens.
 */
export async function completeAuthorization(
  ctx: ConnectionServiceContext,
  req: CompleteAuthorizationRequest,
): Promise<CallbackAnswer> {
  if (!req.state) return stateProblem(AuthorizationOutcome.MISSING_STATE, ctx.oauth);
  const now = ctx.clock.now();
  const used = await ctx.store.consumeOAuthState(sha256Hex(req.state), now);
  if (!used) return stateProblem(AuthorizationOutcome.UNKNOWN_STATE, ctx.oauth);
  const st = used.state;
  // The page that started this attempt is the only one its result is posted to (issue 25).
  const opener = { providerConfigKey: st.providerConfigKey, openerOrigin: st.openerOrigin ?? "" };
  // The frontend SDK's socket hears only from the first use of the state (never from a replay).
  const where = { ...opener, connectionId: st.connectionId, wsClientId: st.wsClientId ?? "" };
  if (used.alreadyUsed) {
    ctx.logger.warn("authorization callback replayed", { integration: st.providerConfigKey });
    // Whoever replays a callback URL learns nothing about the connection it made.
    return { ...stateProblem(AuthorizationOutcome.STATE_ALREADY_USED, ctx.oauth), ...opener };
  }
  if (st.expiresAt <= now) return { ...stateProblem(AuthorizationOutcome.AUTHORIZATION_EXPIRED, ctx.oauth), ...where };
  const session = await ctx.store.getConnectSession(st.sessionId);
  if (!session || session.expiresAt <= now) {
    return { ...stateProblem(AuthorizationOutcome.CONNECT_SESSION_EXPIRED, ctx.oauth), ...where };
  }
  const env = await ctx.environment();
  const integ = await ctx.store.getIntegration(st.environmentId, st.providerConfigKey);
  const template = integ ? ctx.providers.get(integ.provider) : undefined;
  if (!integ || !template || env.id !== st.environmentId) {
    return {
      ...where,
      outcome: AuthorizationOutcome.CONFIGURATION_ERROR,
      message: `Integration "${st.providerConfigKey}" was deleted or changed while the authorization was running. Nothing was saved.`,
    };
  }
  const existing = await ctx.store.getConnection(env.id, integ.uniqueKey, st.connectionId);
  const operation = existing ? "override" : "creation";
  const endUser = endUserOf(session);
  const answer = { ...where, integrationDisplayName: integ.displayName };

  // Failures after a valid state belong to a known connection attempt: the customer hears of them.
  const failed = async (failure: CallbackFailure): Promise<CallbackAnswer> => {
    await notify(ctx, () =>
      enqueueAuthWebhook(ctx, {
        env,
        integ,
        connectionId: st.connectionId,
        operation,
        success: false,
        endUser,
        tags: existing?.tags ?? session.tags,
        error: { type: failure.errorType, description: failure.message },
        // As Nango: the session's override, else (a re-authorization) the connection's own.
        webhookUrlOverride: session.webhookUrlOverride,
      }),
    );
    ctx.logger.info("authorization failed", { integration: integ.uniqueKey, outcome: failure.errorType });
    return { ...answer, ...failure.answer, message: failure.message };
  };

  if (req.error) {
    const denied = req.error === "access_denied";
    const message = denied
      ? "Access was not granted: the consent screen was declined (error=access_denied). Nothing was saved. To connect, start again from the app and allow access."
      : `The provider answered with an error instead of authorizing: ${req.error}${req.errorDescription ? ` (${req.errorDescription})` : ""}. Nothing was saved. Start again from the app.`;
    return failed({
      errorType: req.error,
      message,
      answer: {
        outcome: denied ? AuthorizationOutcome.ACCESS_DENIED : AuthorizationOutcome.UPSTREAM_ERROR,
        upstreamError: req.error,
        upstreamErrorDescription: req.errorDescription,
      },
    });
  }
  if (!req.code) {
    return failed({
      errorType: "missing_code",
      message: "The provider redirected back without an authorization code or an error. Nothing was saved.",
      answer: { outcome: AuthorizationOutcome.MISSING_CODE },
    });
  }

  const sessionConfig = {
    ...existing?.connectionConfig,
    ...sessionConfigFor(session, integ.uniqueKey).connectionConfig,
    ...st.connectionConfig,
  };
  let client: ReturnType<typeof resolveOAuthClient>;
  try {
    client = resolveOAuthClient(ctx, integ, template, st.testCredentials, sessionConfig);
  } catch (err) {
    if (!(err instanceof JunctionError)) throw err;
    return failed({
      errorType: err.code,
      message: `${err.message} Nothing was saved.`,
      answer: { outcome: AuthorizationOutcome.CONFIGURATION_ERROR },
    });
  }
  const result = await requestToken(
    ctx.fetch,
    {
      tokenUrl: client.tokenUrl,
      params: {
        grant_type: "authorization_code",
        code: req.code,
        redirect_uri: st.redirectUri,
        ...(template.pkce === "refused"
          ? {}
          : { code_verifier: ctx.encryptor.decrypt(st.codeVerifierEnc, secretContexts.codeVerifier(st.stateHash)) }),
      },
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      definition: template,
    },
    ctx.oauth.tokenRequestTimeoutMs,
  );
  if (!result.ok) return failed(describeExchangeFailure(result.failure, template.name));

  const token = result.token;
  const read = await readConnectionConfigFields(
    ctx,
    integ,
    template,
    token,
    client.baseUrl,
    sessionConfig,
    req.callbackParams,
  );
  if (!read.ok) {
    return failed({
      errorType: "connection_config_unavailable",
      message: read.message,
      answer: { outcome: AuthorizationOutcome.TOKEN_ENDPOINT_INVALID_RESPONSE },
    });
  }
  const at = ctx.clock.now();
  const previous = existing?.credentialsEnc ? openCredentials(ctx.encryptor, existing, existing.credentialsEnc) : null;
  const credentials: StoredCredentials = {
    type: "OAUTH2",
    accessToken: token.accessToken,
    // A re-authorization often brings no new refresh token: the one held stays valid (spec: Authentication 2).
    refreshToken: token.refreshToken ?? previous?.refreshToken ?? "",
    expiresAt: token.expiresIn ? at + token.expiresIn * 1000 : null,
    raw: token.raw,
    scope: token.scope ?? st.scopes.join(SCOPE_SEPARATORS[template.scopeSeparator]),
    ...(client.testCredentials ? { testCredentials: true } : {}),
  };
  const connectionConfig: Record<string, unknown> = {
    ...sessionConfigFor(session, integ.uniqueKey).connectionConfig,
    ...st.connectionConfig,
    ...read.values,
  };
  let hashProblem: ConnectionErrorRecord | null = null;
  // The grant as the token answer states it (RFC 6749 section 5.1), else the scopes asked for.
  const granted = token.scope ? token.scope.split(" ").filter(Boolean) : st.scopes;
  const readAccountEmail = accountEmailReader(template, granted);
  if (readAccountEmail) {
    // spec: Versioning 2 and Webhook-to-connection matching rule 2: on every successful authorization.
    const primary = await readAccountEmail(
      ctx.fetch,
      connectionBaseUrl(integ, template, client.baseUrl, { ...sessionConfig, ...read.values }),
      token.accessToken,
      ctx.oauth.tokenRequestTimeoutMs,
    );
    if (primary.ok) connectionConfig.emailAddressHash = emailAddressHash(primary.email);
    else {
      hashProblem = {
        type: EMAIL_HASH_UNAVAILABLE,
        message: `connection_config.emailAddressHash was not written: ${primary.reason}. Notifications are matched by metadata.emailAddress or metadata.email instead; set one, or authorize again.`,
        at,
      };
    }
  }
  const saved = await saveConnection(ctx, {
    env,
    integ,
    connectionId: st.connectionId,
    credentials,
    connectionConfig,
    metadata: {},
    endUser,
    tags: session.tags,
    webhookUrlOverride: session.webhookUrlOverride,
    reviseErrors: (errs) => {
      const kept = errs.filter((e) => !isRefreshError(e.type) && e.type !== EMAIL_HASH_UNAVAILABLE);
      return hashProblem ? [hashProblem, ...kept] : kept;
    },
  });
  await notify(ctx, () =>
    enqueueAuthWebhook(ctx, {
      env,
      integ,
      connectionId: st.connectionId,
      operation: saved.created ? "creation" : "override",
      success: true,
      endUser,
      tags: saved.connection.tags,
    }),
  );
  return {
    ...answer,
    outcome: AuthorizationOutcome.CONNECTED,
    created: saved.created,
    message: saved.created
      ? `${integ.displayName} is connected. You can close this window.`
      : `${integ.displayName} is connected again (the existing connection was re-authorized). You can close this window.`,
  };
}

/** The end user stored on the connection: the session's, with its organization; null for a tags-only session. */
export function endUserOf(session: ConnectSessionRecord): Record<string, unknown> | null {
  if (!session.endUser) return null;
  return session.organization ? { ...session.endUser, organization: session.organization } : { ...session.endUser };
}

/** The browser must get its page even if the webhook could not be queued; the failure is logged. */
async function notify(ctx: ConnectionServiceContext, enqueue: () => Promise<void>): Promise<void> {
  try {
    await enqueue();
  } catch (err) {
    ctx.logger.error("auth webhook could not be enqueued", { error: err });
  }
}
