import { describe, expect, test } from "bun:test";
import { DEFAULT_DELIVERY_CONFIG } from "../config.ts";
import { nextRetryDelay } from "./retry-policy.ts";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const noJitter = { ...DEFAULT_DELIVERY_CONFIG, retryJitter: 0 };

describe("nextRetryDelay", () => {
  test("follows the default schedule, then gives up after the eighth attempt", () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((done) => nextRetryDelay(noJitter, done, null));
    expect(delays).toEqual([5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H]);
    expect(nextRetryDelay(noJitter, 8, null)).toBeNull();
    expect(DEFAULT_DELIVERY_CONFIG.retryScheduleMs[0]).toBe(0);
  });

  test("jitters within the configured fraction either way", () => {
    const config = { ...DEFAULT_DELIVERY_CONFIG, retryJitter: 0.1 };
    expect(nextRetryDelay(config, 2, null, () => 0)).toBe(Math.round(5 * M * 0.9));
    expect(nextRetryDelay(config, 2, null, () => 1)).toBe(Math.round(5 * M * 1.1));
    for (let i = 0; i < 100; i++) {
      const d = nextRetryDelay(config, 2, null) as number;
      expect(d).toBeGreaterThanOrEqual(5 * M * 0.9 - 1);
      expect(d).toBeLessThanOrEqual(5 * M * 1.1 + 1);
    }
  });

  test("never retries before a Retry-After, clamped to the maximum", () => {
    expect(nextRetryDelay(noJitter, 1, 120 * S)).toBe(120 * S);
    expect(nextRetryDelay(noJitter, 1, 2 * S)).toBe(5 * S);
    expect(nextRetryDelay(noJitter, 1, 7 * 24 * H)).toBe(DEFAULT_DELIVERY_CONFIG.retryAfterMaxMs);
    expect(nextRetryDelay(noJitter, 1, -5)).toBe(5 * S);
    expect(nextRetryDelay(noJitter, 8, 1 * S)).toBeNull();
  });
});
