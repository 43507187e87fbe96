import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  AuthorizationOutcome,
  type CompleteAuthorizationRequest,
  type CompleteAuthorizationResponseSchema,
} from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../context.ts";
import type { ConnectSessionRecord } from "../store/records.ts";
import { enqueueAuthWebhook } from "./auth-webhook.ts";
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
  const opened = await openCallbackAttempt(ctx, req);
  if ("answer" in opened) return opened.answer;
  const { attempt } = opened;
  const { st, env, integ } = attempt;
  const endUser = endUserOf(attempt.session);
  const answer = { ...attempt.where, integrationDisplayName: integ.displayName };

  const refused = upstreamRefusal(req);
  if (refused) return failed(ctx, attempt, endUser, refused);
  const exchange = await exchangeCode(ctx, attempt, req);
  if (!exchange.ok) return failed(ctx, attempt, endUser, exchange.failure);

  const saved = await saveAuthorizedConnection(ctx, attempt, exchange.exchanged, endUser);
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

/** A failure after a valid state belongs to a known connection attempt: the customer hears of it. */
async function failed(
  ctx: ConnectionServiceContext,
  { st, session, env, integ, existing, where }: CallbackAttempt,
  endUser: Record<string, unknown> | null,
  failure: CallbackFailure,
): Promise<CallbackAnswer> {
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
