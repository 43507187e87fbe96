/**
 * The one backoff and the one `Retry-After` reading of Junction: the proxy's retries, webhook
 * deliveries and the queue workers all wait through these.
 */

/** Exponential backoff without jitter: base·2^attempt, capped at `maxMs` (attempt counts from 0). */
export function exponentialDelay(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
}

/** Exponential backoff with full jitter: a random delay below base·2^attempt, capped at `maxMs`. */
export function fullJitterDelay(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  return Math.floor(random() * exponentialDelay(attempt, baseMs, maxMs));
}

/** A scheduled delay moved by up to ±`fraction` of itself, so that the retries of a burst do not all land at once. */
export function jitteredDelay(delayMs: number, fraction: number, random: () => number = Math.random): number {
  return Math.round(delayMs * (1 + fraction * (2 * random() - 1)));
}

const DELTA_SECONDS_RE = /^\d+$/;
const HAS_WORD_RE = /[a-z]{3}/i;

/**
 * A `Retry-After` value (RFC 9110 §10.2.3: delta-seconds or an HTTP date) as milliseconds from
 * `nowMs`, never negative; null when absent or unreadable. Unclamped: each caller bounds it.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (!value) return null;
  const text = value.trim();
  if (DELTA_SECONDS_RE.test(text)) return Number(text) * 1000;
  // An HTTP date names a weekday and a month; anything without letters ("2026-01-01", "-5") is not one.
  if (!HAS_WORD_RE.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
