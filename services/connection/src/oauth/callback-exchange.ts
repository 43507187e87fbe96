import {
  AuthorizationOutcome,
  type CompleteAuthorizationRequest,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { JunctionError } from "@junction/platform";
import type { ConnectionServiceContext } from "../context.ts";
import { secretContexts } from "../secret-contexts.ts";
import type { CallbackAttempt } from "./callback-attempt.ts";
import { type CallbackFailure, describeExchangeFailure } from "./callback-messages.ts";
import { readConnectionConfigFields } from "./connection-config-fields.ts";
import { sessionConfigFor } from "./connect-sessions.ts";
import { type OAuthClient, resolveOAuthClient } from "./oauth-client.ts";
import type { TokenSet } from "./token-answer.ts";
import { requestToken } from "./token-client.ts";

/** A code exchanged for tokens, with what the definition reads from the answer into the connection config. */
export interface ExchangedCode {
  token: TokenSet;
  client: OAuthClient;
  /** The connection config the attempt started with (the connection's, the session's, the state's). */
  sessionConfig: Record<string, unknown>;
  /** Connection-config values read from the token answer or the callback. */
  values: Record<string, unknown>;
}

/** What the provider sent instead of a code (an error, or nothing), as the failure the customer hears of. */
export function upstreamRefusal(req: CompleteAuthorizationRequest): CallbackFailure | null {
  if (req.error) {
    const denied = req.error === "access_denied";
    const message = denied
      ? "Access was not granted: the consent screen was declined (error=access_denied). Nothing was saved. To connect, start again from the app and allow access."
      : `The provider answered with an error instead of authorizing: ${req.error}${req.errorDescription ? ` (${req.errorDescription})` : ""}. Nothing was saved. Start again from the app.`;
    return {
      errorType: req.error,
      message,
      answer: {
        outcome: denied ? AuthorizationOutcome.ACCESS_DENIED : AuthorizationOutcome.UPSTREAM_ERROR,
        upstreamError: req.error,
        upstreamErrorDescription: req.errorDescription,
      },
    };
  }
  if (req.code) return null;
  return {
    errorType: "missing_code",
    message: "The provider redirected back without an authorization code or an error. Nothing was saved.",
    answer: { outcome: AuthorizationOutcome.MISSING_CODE },
  };
}

/** Exchanges the code at the client's token URL (with the PKCE verifier unless the provider refuses PKCE). */
export async function exchangeCode(
  ctx: ConnectionServiceContext,
  attempt: CallbackAttempt,
  req: CompleteAuthorizationRequest,
): Promise<{ ok: true; exchanged: ExchangedCode } | { ok: false; failure: CallbackFailure }> {
  const { st, session, integ, template, existing } = attempt;
  const sessionConfig = {
    ...existing?.connectionConfig,
    ...sessionConfigFor(session, integ.uniqueKey).connectionConfig,
    ...st.connectionConfig,
  };
  let client: OAuthClient;
  try {
    client = resolveOAuthClient(ctx, integ, template, st.testCredentials, sessionConfig);
  } catch (err) {
    if (!(err instanceof JunctionError)) throw err;
    const answer = { outcome: AuthorizationOutcome.CONFIGURATION_ERROR };
    return { ok: false, failure: { errorType: err.code, message: `${err.message} Nothing was saved.`, answer } };
  }
  const verifier: Record<string, string> =
    template.pkce === "refused"
      ? {}
      : { code_verifier: ctx.encryptor.decrypt(st.codeVerifierEnc, secretContexts.codeVerifier(st.stateHash)) };
  const result = await requestToken(
    ctx.fetch,
    {
      tokenUrl: client.tokenUrl,
      params: { grant_type: "authorization_code", code: req.code, redirect_uri: st.redirectUri, ...verifier },
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      definition: template,
    },
    ctx.oauth.tokenRequestTimeoutMs,
  );
  if (!result.ok) return { ok: false, failure: describeExchangeFailure(result.failure, template.name) };
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
    const answer = { outcome: AuthorizationOutcome.TOKEN_ENDPOINT_INVALID_RESPONSE };
    return { ok: false, failure: { errorType: "connection_config_unavailable", message: read.message, answer } };
  }
  return { ok: true, exchanged: { token, client, sessionConfig, values: read.values } };
}
