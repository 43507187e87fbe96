import type { MessageRecord, RoundOutcome } from "../store/records.ts";
import type { SendResult } from "./http-sender.ts";
import type { RoundDeps } from "./deliver-round.ts";
import { nextRetryDelay } from "./retry-policy.ts";

/**
 * How a round that posted to its targets ended: succeeded when every post did; else failed, due
 * again after the retry policy's delay (at least the longest Retry-After), or exhausted when the
 * policy gives up.
 */
export function roundOutcome(
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

/**
 * How a round with nothing left to post ends: succeeded when an endpoint has the message already,
 * else exhausted, saying why no endpoint could take it.
 */
export function noTargetOutcome(
  message: MessageRecord,
  delivered: Set<string>,
  configuredEndpoints: number,
  now: number,
): RoundOutcome {
  return {
    status: delivered.size > 0 ? "succeeded" : "exhausted",
    attemptCount: message.attemptCount,
    roundAttempts: message.roundAttempts,
    nextAttemptAt: null,
    lastError: delivered.size > 0 ? null : noEndpointReason(configuredEndpoints),
    deliveredEndpointIds: [...delivered],
    updatedAt: now,
  };
}

function noEndpointReason(configured: number): string {
  return configured === 0 ? "no webhook endpoint is configured" : "every webhook endpoint is disabled";
}
