import { randomToken } from "@junction/platform";
import type { WebhookServiceContext } from "../context.ts";
import type { AttemptRecord, MessageRecord, RoundOutcome } from "../store/records.ts";
import { recordDeliveryRound } from "./delivery-operation.ts";
import type { SendRequest, SendResult } from "./http-sender.ts";
import { attemptRecords, postToTargets, recordTargetHealth, roundTargets } from "./round-attempts.ts";
import { noTargetOutcome, roundOutcome } from "./round-outcome.ts";
import type { SigningKeys } from "./signing-keys.ts";

/** A claim outlives the attempt's timeout by this much before another worker may take the message. */
const LEASE_MARGIN_MS = 5000;
/** When a claim fails although the message looks due (a race), it is looked at again after this. */
const RECHECK_MS = 1000;

export interface RoundDeps {
  ctx: WebhookServiceContext;
  keys: SigningKeys;
  send: (request: SendRequest) => Promise<SendResult>;
  random?: () => number;
}

/**
 * One delivery round of a message: claims it, posts it, signed, to every enabled endpoint that has
 * not had it yet in this run, records every attempt and the new state, and returns when the
 * message is next due (null when it is final: succeeded or exhausted). A 2xx within the timeout is
 * a success; anything else fails the round for that endpoint and schedules a retry.
 */
export async function deliverRound(
  deps: RoundDeps,
  messageId: string,
  claimed?: MessageRecord,
): Promise<number | null> {
  const { ctx } = deps;
  const now = ctx.clock.now();
  // A claim taken when the message was stored serves if it still covers a whole attempt.
  const preclaimed =
    claimed?.leaseToken && (claimed.leaseUntil ?? 0) - ctx.delivery.attemptTimeoutMs > now ? claimed : undefined;
  const token = (preclaimed?.leaseToken as string | undefined) ?? randomToken(12);
  const message = preclaimed ?? (await ctx.store.claimMessage(messageId, now, leaseUntil(ctx, now), token));
  if (!message) return dueAgain(ctx, messageId, now);

  const settings = await ctx.settings.current(message.environmentId, now);
  const delivered = new Set(message.deliveredEndpointIds);
  const targets = roundTargets(message, settings.endpoints, delivered);
  if (targets.length === 0) {
    await finishWithoutTargets(
      ctx,
      message,
      token,
      noTargetOutcome(message, delivered, settings.endpoints.length, now),
    );
    return null;
  }
  const results = await postToTargets(deps, message, settings, targets, now);
  const attempts = attemptRecords(ctx, message, targets, results, delivered, now);
  // A connection's override is no endpoint of the settings: failing does not disable it.
  if (!message.targetUrl) await recordTargetHealth(ctx, message, settings.endpoints, targets, results, now);
  // Retry delays count from the end of the round. Recording it is the round's last step, so that
  // whoever sees its outcome in the store also finds the next round scheduled.
  const outcome = roundOutcome(deps, message, results, [...delivered], ctx.clock.now());
  return finishRound(ctx, message, token, attempts, outcome, now);
}

/** Records a round that had nothing to post (its outcome is final), counted and logged. */
async function finishWithoutTargets(
  ctx: WebhookServiceContext,
  message: MessageRecord,
  token: string,
  outcome: RoundOutcome,
): Promise<void> {
  await ctx.store.completeRound(message.id, token, [], outcome);
  ctx.counts.deliveries.inc(outcome.status);
  recordDeliveryRound(ctx, message, [], outcome, outcome.updatedAt);
}

/** Records a round's attempts and outcome; when the message is next due (see `deliverRound`). */
async function finishRound(
  ctx: WebhookServiceContext,
  message: MessageRecord,
  token: string,
  attempts: AttemptRecord[],
  outcome: RoundOutcome,
  startedAt: number,
): Promise<number | null> {
  if (outcome.status === "exhausted") {
    ctx.logger.warn("webhook message exhausted", {
      messageId: message.id,
      type: message.type,
      lastError: outcome.lastError,
    });
  }
  const applied = await ctx.store.completeRound(message.id, token, attempts, outcome);
  ctx.counts.deliveries.inc(outcome.status);
  recordDeliveryRound(ctx, message, attempts, outcome, startedAt);
  return applied ? outcome.nextAttemptAt : dueAgain(ctx, message.id, ctx.clock.now());
}

/** Until when a claim taken at `now` holds: the attempt's timeout and a margin. */
export function leaseUntil(ctx: WebhookServiceContext, now: number): number {
  return now + ctx.delivery.attemptTimeoutMs + LEASE_MARGIN_MS;
}

/** When a message that could not be claimed should be looked at again; null when it is final. */
async function dueAgain(ctx: WebhookServiceContext, messageId: string, now: number): Promise<number | null> {
  const entry = await ctx.store.findDeliverable(messageId);
  if (!entry) return null;
  const at = Math.max(entry.nextAttemptAt, entry.leaseUntil ?? 0);
  return at > now ? at : now + RECHECK_MS;
}
