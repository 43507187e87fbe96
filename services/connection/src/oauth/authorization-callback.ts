import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  AuthorizationOutcome,
  type CompleteAuthorizationRequest,
  type CompleteAuthorizationResponseSchema,
} from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../context.ts";
import type { ConnectSessionRecord, OAuthStateRecord } from "../store/records.ts";
import { enqueueAuthWebhook } from "./auth-webhook.ts";
import { type AuthorizationStep, recordAuthorization, thrownEnd } from "./authorization-operation.ts";
import { type CallbackAttempt, openCallbackAttempt } from "./callback-attempt.ts";
import { exchangeCode, upstreamRefusal } from "./callback-exchange.ts";
import type { CallbackFailure } from "./callback-messages.ts";
import { saveAuthorizedConnection } from "./callback-save.ts";

export type CallbackAnswer = MessageInitShape<typeof CompleteAuthorizationResponseSchema>;

/**
 * Completes an authorization at {base_url}/oauth/callback (spec: What the service does 3). The state
 * is checked and used up before anything else (`callback-attempt.ts`); every failure is an answer naming what
 * went wrong, and nothing is written to the connection unless the code was exchanged for tokens
 * (`callback-exchange.ts`, then `callback-save.ts`).
 */
export async function completeAuthorization(
  ctx: ConnectionServiceContext,
  req: CompleteAuthorizationRequest,
): Promise<CallbackAnswer> {
  const receivedAtMs = ctx.clock.now();
  const opened = await openCallbackAttempt(ctx, req);
  if ("answer" in opened) return opened.recorded ? opened.answer : stateAnswer(ctx, receivedAtMs, opened);
  const { attempt } = opened;
  const { st, env, integ } = attempt;
  const endUser = endUserOf(attempt.session);
  const answer = { ...attempt.where, integrationDisplayName: integ.displayName };

  const refused = upstreamRefusal(req);
  if (refused) return failed(ctx, attempt, endUser, refused, "consent");
  const exchange = await exchangeCode(ctx, attempt, req);
  if (!exchange.ok) return failed(ctx, attempt, endUser, exchange.failure, "exchange");

  let saved: Awaited<ReturnType<typeof saveAuthorizedConnection>>;
  try {
    saved = await saveAuthorizedConnection(ctx, attempt, exchange.exchanged, endUser);
  } catch (err) {
    recordAuthorization(ctx, attemptFacts(attempt), thrownEnd(err, "save"));
    throw err;
  }
  recordAuthorization(ctx, attemptFacts(attempt), { ok: true, created: saved.created });
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

/** What the operations log files an attempt under: it started when its authorization URL was made. */
function attemptFacts({ st, session, integ }: CallbackAttempt) {
  return {
    startedAtMs: st.createdAt,
    authMode: "OAUTH2",
    environmentId: st.environmentId,
    integration: integ.uniqueKey,
    connection: st.connectionId,
    session,
  };
}

/** The stable code of an answer's outcome, as the callback page shows it ("token_exchange_refused"). */
function outcomeCode(answer: CallbackAnswer): string {
  return (AuthorizationOutcome[answer.outcome ?? AuthorizationOutcome.UNSPECIFIED] ?? "unspecified").toLowerCase();
}

/**
 * A callback whose state could not be used ends its attempt, from when its authorization URL was made, with its
 * session's end user and tags (or is refused, a state never given or replayed): recorded so.
 */
async function stateAnswer(
  ctx: ConnectionServiceContext,
  receivedAtMs: number,
  { answer, state }: { answer: CallbackAnswer; state?: OAuthStateRecord },
): Promise<CallbackAnswer> {
  const code = outcomeCode(answer);
  const session = state ? await ctx.store.getConnectSession(state.sessionId).catch(() => null) : null;
  recordAuthorization(
    ctx,
    {
      startedAtMs: state?.createdAt ?? receivedAtMs,
      authMode: "OAUTH2",
      integration: answer.providerConfigKey ?? "",
      connection: answer.connectionId ?? "",
      ...(state ? { environmentId: state.environmentId } : {}),
      session,
    },
    { ok: false, step: "callback", code, message: answer.message ?? "" },
  );
  return answer;
}

/** A failure after a valid state belongs to a known connection attempt: the customer hears of it. */
async function failed(
  ctx: ConnectionServiceContext,
  attempt: CallbackAttempt,
  endUser: Record<string, unknown> | null,
  failure: CallbackFailure,
  step: AuthorizationStep,
): Promise<CallbackAnswer> {
  const { st, session, env, integ, existing, where } = attempt;
  const code = outcomeCode(failure.answer);
  const cause = failure.errorType === code ? undefined : failure.errorType;
  recordAuthorization(ctx, attemptFacts(attempt), { ok: false, step, code, message: failure.message, cause });
  await notify(ctx, () =>
    enqueueAuthWebhook(ctx, {
      env,
      integ,
      connectionId: st.connectionId,
      operation: existing ? "override" : "creation",
      success: false,
      endUser,
      tags: existing?.tags ?? session.tags,
      error: { type: failure.errorType, description: failure.message },
      // As Nango: the session's override, else (a re-authorization) the connection's own.
      webhookUrlOverride: session.webhookUrlOverride,
    }),
  );
  ctx.logger.info("authorization failed", { integration: integ.uniqueKey, outcome: failure.errorType });
  return { ...where, integrationDisplayName: integ.displayName, ...failure.answer, message: failure.message };
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
