import {
  AuthorizationOutcome,
  type CompleteAuthorizationRequest,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { sha256Hex } from "@junction/platform";
import type { ProviderAdapter } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import type {
  ConnectionRecord,
  ConnectSessionRecord,
  EnvironmentRecord,
  IntegrationRecord,
  OAuthStateRecord,
} from "../store/records.ts";
import type { CallbackAnswer } from "./authorization-callback.ts";
import { stateProblem } from "./callback-messages.ts";

/** A callback whose state, connect session and integration were all still good: what completing it works with. */
export interface CallbackAttempt {
  st: OAuthStateRecord;
  session: ConnectSessionRecord;
  env: EnvironmentRecord;
  integ: IntegrationRecord;
  template: ProviderAdapter;
  /** The connection this attempt re-authorizes; undefined for a new one. */
  existing: ConnectionRecord | null;
  /** Where the answer goes: the opener's origin, the connection, the frontend SDK's socket. */
  where: Pick<CallbackAnswer, "providerConfigKey" | "openerOrigin" | "connectionId" | "wsClientId">;
}

/**
 * Uses the callback's state up before anything else and checks what it points at. Either the attempt, or the
 * answer that ends it (a missing, unknown, replayed or expired state; an expired session; an integration that
 * changed meanwhile), with the state when this use was its first (the attempt it ends), `recorded` when the
 * attempt's end is already in the operations log (the sweep's abandoned attempt). Nothing is written besides the
 * state's use.
 */
export async function openCallbackAttempt(
  ctx: ConnectionServiceContext,
  req: CompleteAuthorizationRequest,
): Promise<{ attempt: CallbackAttempt } | { answer: CallbackAnswer; state?: OAuthStateRecord; recorded?: true }> {
  if (!req.state) return { answer: stateProblem(AuthorizationOutcome.MISSING_STATE, ctx.oauth) };
  const now = ctx.clock.now();
  const used = await ctx.store.consumeOAuthState(sha256Hex(req.state), now);
  if (!used) return { answer: stateProblem(AuthorizationOutcome.UNKNOWN_STATE, ctx.oauth) };
  const st = used.state;
  // The page that started this attempt is the only one its result is posted to.
  const opener = { providerConfigKey: st.providerConfigKey, openerOrigin: st.openerOrigin ?? "" };
  // The frontend SDK's socket hears only from the first use of the state (never from a replay).
  const where = { ...opener, connectionId: st.connectionId, wsClientId: st.wsClientId ?? "" };
  if (used.alreadyUsed && st.abandoned) {
    // The sweep found it expired first and recorded the attempt as abandoned: the late user hears it expired.
    return {
      answer: { ...stateProblem(AuthorizationOutcome.AUTHORIZATION_EXPIRED, ctx.oauth), ...opener },
      recorded: true,
    };
  }
  if (used.alreadyUsed) {
    ctx.logger.warn("authorization callback replayed", { integration: st.providerConfigKey });
    // Whoever replays a callback URL learns nothing about the connection it made.
    return { answer: { ...stateProblem(AuthorizationOutcome.STATE_ALREADY_USED, ctx.oauth), ...opener } };
  }
  if (st.expiresAt <= now) {
    return { answer: { ...stateProblem(AuthorizationOutcome.AUTHORIZATION_EXPIRED, ctx.oauth), ...where }, state: st };
  }
  const session = await ctx.store.getConnectSession(st.sessionId);
  if (!session || session.expiresAt <= now) {
    return {
      answer: { ...stateProblem(AuthorizationOutcome.CONNECT_SESSION_EXPIRED, ctx.oauth), ...where },
      state: st,
    };
  }
  const env = await ctx.environment();
  const integ = await ctx.store.getIntegration(st.environmentId, st.providerConfigKey);
  const template = integ ? ctx.providers.get(integ.provider) : undefined;
  if (!integ || !template || env.id !== st.environmentId) {
    const message = `Integration "${st.providerConfigKey}" was deleted or changed while the authorization was running. Nothing was saved.`;
    return { answer: { ...where, outcome: AuthorizationOutcome.CONFIGURATION_ERROR, message }, state: st };
  }
  const existing = await ctx.store.getConnection(env.id, integ.uniqueKey, st.connectionId);
  return { attempt: { st, session, env, integ, template, existing, where } };
}
