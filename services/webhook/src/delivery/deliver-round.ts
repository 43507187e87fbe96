import { newId, randomToken } from "@junction/platform";
import type { WebhookServiceContext } from "../context.ts";
import { signatureHeaders } from "../signing.ts";
import type { AttemptRecord, MessageRecord, RoundOutcome } from "../store/records.ts";
import { recordDeliveryRound } from "./delivery-operation.ts";
import { recordEndpointHealth } from "./endpoint-health.ts";
import type { SendRequest, SendResult } from "./http-sender.ts";
import { nextRetryDelay } from "./retry-policy.ts";
import type { SigningKeys } from "./signing-keys.ts";
import { OVERRIDE_ENDPOINT_ID } from "./connection-target.ts";

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
  // A connection's webhook URL override replaces the endpoints for its messages (Nango's behaviour).
  const endpoints = message.targetUrl
    ? [{ id: OVERRIDE_ENDPOINT_ID, url: message.targetUrl, enabled: true, createdAt: message.createdAt }]
    : settings.endpoints;
  const targets = endpoints.filter((e) => e.enabled && !delivered.has(e.id));
  if (targets.length === 0) {
    const outcome: RoundOutcome = {
      status: delivered.size > 0 ? "succeeded" : "exhausted",
      attemptCount: message.attemptCount,
      roundAttempts: message.roundAttempts,
      nextAttemptAt: null,
      lastError: delivered.size > 0 ? null : noEndpointReason(settings.endpoints.length),
      deliveredEndpointIds: [...delivered],
      updatedAt: now,
    };
    await ctx.store.completeRound(message.id, token, [], outcome);
    ctx.counts.deliveries.inc(outcome.status);
    recordDeliveryRound(ctx, message, [], outcome, now);
    return null;
  }

  const timestamp = Math.floor(now / 1000);
  const headers = {
    ...signatureHeaders(deps.keys.secrets(settings, now), message.id, timestamp, message.body),
    "content-type": "application/json",
    "user-agent": "Junction-Webhooks/1",
  };
  const number = message.attemptCount + 1;
  const results = await Promise.all(
    targets.map((e) =>
      deps.send({ url: e.url, headers, body: message.body, timeoutMs: ctx.delivery.attemptTimeoutMs }),
    ),
  );
  const attempts: AttemptRecord[] = results.map((r, i) => {
    const endpoint = targets[i] as (typeof targets)[number];
    if (r.error === null) delivered.add(endpoint.id);
    ctx.counts.attempts.inc(r.error === null ? "ok" : "failed");
    ctx.counts.attemptSeconds.observe(r.latencyMs / 1000);
    return {
      id: newId("att", now),
      messageId: message.id,
      endpointId: endpoint.id,
      url: endpoint.url,
      statusCode: r.statusCode,
      latencyMs: r.latencyMs,
      responseSnippet: r.responseSnippet,
      error: r.error,
      at: now,
      number,
    };
  });
  // A connection's override is no endpoint of the settings: failing does not disable it.
  if (!message.targetUrl) {
    await recordEndpointHealth(
      ctx,
      message.environmentId,
      settings.endpoints,
      targets.map((e, i) => ({ endpointId: e.id, ok: results[i]?.error === null, error: results[i]?.error ?? null })),
      now,
    ).catch((err: unknown) => ctx.logger.error("endpoint health not recorded", { messageId, error: err }));
  }
  // Retry delays count from the end of the round. Recording it is the round's last step, so that
  // whoever sees its outcome in the store also finds the next round scheduled.
  const outcome = roundOutcome(deps, message, results, [...delivered], ctx.clock.now());
  if (outcome.status === "exhausted") {
    ctx.logger.warn("webhook message exhausted", { messageId, type: message.type, lastError: outcome.lastError });
  }
  const applied = await ctx.store.completeRound(message.id, token, attempts, outcome);
  ctx.counts.deliveries.inc(outcome.status);
  recordDeliveryRound(ctx, message, attempts, outcome, now);
  return applied ? outcome.nextAttemptAt : dueAgain(ctx, messageId, ctx.clock.now());
}

function roundOutcome(
  deps: RoundDeps,
  message: MessageRecord,
  results: SendResult[],
  delivered: string[],
  now: number,
): RoundOutcome {
  const failed = results.filter((r) => r.error !== null);
  const roundAttempts = message.roundAttempts + 1;
  const base = {
    attemptCount: message.attemptCount + 1,
    roundAttempts,
    deliveredEndpointIds: delivered,
    updatedAt: now,
  };
  if (failed.length === 0) return { ...base, status: "succeeded", nextAttemptAt: null, lastError: null };
  const lastError = failed.map((r) => r.error).join("; ");
  const retryAfter = failed.reduce<number | null>(
    (max, r) => (r.retryAfterMs === null ? max : Math.max(max ?? 0, r.retryAfterMs)),
    null,
  );
  const delay = nextRetryDelay(deps.ctx.delivery, roundAttempts, retryAfter, deps.random);
  if (delay === null) {
    return {
      ...base,
      status: "exhausted",
      nextAttemptAt: null,
      lastError: `${roundAttempts} attempts failed; last: ${lastError}`,
    };
  }
  return { ...base, status: "failed", nextAttemptAt: now + delay, lastError };
}

function noEndpointReason(configured: number): string {
  return configured === 0 ? "no webhook endpoint is configured" : "every webhook endpoint is disabled";
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
