import type { ProxySettings } from "./proxy-settings.ts";
import { fullJitterDelay, parseRetryAfter } from "@junction/platform/retry";
import type { ProxyControls } from "./proxy-controls.ts";

/** Methods that may be repeated without changing the outcome (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/** The policy fields the retry rules use. */
export type RetryPolicy = Pick<
  ProxySettings,
  "defaultRetries" | "maxRetries" | "retryBaseDelayMs" | "retryMaxDelayMs" | "maxRetryAfterMs"
>;

/**
 * How many times a request may be retried: the caller's `Retries` (bounded by the policy); otherwise
 * the default for idempotent methods, or when the caller asked with `Retry-On`. A non-idempotent
 * method the caller did not ask about is never retried: the upstream may have acted on it.
 */
export function retryBudget(method: string, controls: ProxyControls, policy: RetryPolicy): number {
  if (controls.retries !== undefined) return Math.min(controls.retries, policy.maxRetries);
  if (IDEMPOTENT.has(method) || controls.retryOn.size > 0) return policy.defaultRetries;
  return 0;
}

/** Whether an upstream status is worth another attempt: 429, 5xx, or one the caller listed in `Retry-On`. */
export function isRetryableStatus(status: number, retryOn: ReadonlySet<number>): boolean {
  return status === 429 || (status >= 500 && status <= 599) || retryOn.has(status);
}

/** Exponential backoff with full jitter: a random delay up to base·2^attempt, capped (attempt counts from 0). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  return fullJitterDelay(attempt, policy.retryBaseDelayMs, policy.retryMaxDelayMs, random);
}

/**
 * The wait a `Retry-After` asks for (seconds or an HTTP date), clamped to the policy's bound so that
 * an upstream cannot park a request for an hour. Undefined when absent or unreadable.
 */
export function retryAfterDelay(value: string | null, now: number, policy: RetryPolicy): number | undefined {
  const ms = parseRetryAfter(value, now);
  return ms === null ? undefined : Math.min(ms, policy.maxRetryAfterMs);
}
