import { jitteredDelay } from "@junction/platform/retry";
import type { DeliveryConfig } from "../config.ts";

/**
 * When the next round of a message is due, after `roundsDone` failed rounds of its current run,
 * or null when none is left (the message is exhausted). The schedule's delay is moved by up to
 * ±`retryJitter` (so the retries of a burst do not all land at once); a 429's Retry-After, capped
 * at `retryAfterMaxMs`, is honoured by never retrying earlier than it asks.
 */
export function nextRetryDelay(
  config: Pick<DeliveryConfig, "retryScheduleMs" | "retryJitter" | "retryAfterMaxMs">,
  roundsDone: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  const scheduled = config.retryScheduleMs[roundsDone];
  if (scheduled === undefined) return null;
  const jittered = jitteredDelay(scheduled, config.retryJitter, random);
  const asked = retryAfterMs === null ? 0 : Math.min(Math.max(0, retryAfterMs), config.retryAfterMaxMs);
  return Math.max(0, jittered, asked);
}
