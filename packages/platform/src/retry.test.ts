import { describe, expect, test } from "bun:test";
import { exponentialDelay, fullJitterDelay, jitteredDelay, parseRetryAfter } from "./retry.ts";

describe("backoff", () => {
  test("doubles from the base up to the cap", () => {
    expect([0, 1, 2, 3, 10, 500].map((a) => exponentialDelay(a, 100, 1000))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  test("full jitter draws below the exponential delay", () => {
    expect(fullJitterDelay(2, 100, 1000, () => 0)).toBe(0);
    expect(fullJitterDelay(2, 100, 1000, () => 0.5)).toBe(200);
    expect(fullJitterDelay(2, 100, 1000, () => 0.999)).toBe(399);
  });

  test("a scheduled delay moves by at most the fraction either way", () => {
    expect(jitteredDelay(1000, 0.2, () => 0)).toBe(800);
    expect(jitteredDelay(1000, 0.2, () => 0.5)).toBe(1000);
    expect(jitteredDelay(1000, 0.2, () => 1)).toBe(1200);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  test("reads delta-seconds of any length and HTTP dates, a past date as 0", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("99999999999", now)).toBe(99_999_999_999_000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 12:01:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 11:00:00 GMT", now)).toBe(0);
  });

  test("anything else is null: words, negative numbers, ISO dates, nothing", () => {
    for (const value of ["soon", "-5", "1.5", "2026-01-01", "", null, undefined]) {
      expect(parseRetryAfter(value, now)).toBeNull();
    }
  });
});
