import { describe, expect, test } from "bun:test";
import { TokenBuckets } from "./token-buckets.ts";

const T0 = 1_700_000_000_000;

describe("TokenBuckets", () => {
  test("a key takes its burst at once, then one token per 1/rate seconds", () => {
    const b = new TokenBuckets<string>(10, 3, 100);
    for (let i = 0; i < 3; i++) {
      expect(b.waitMs("a", T0)).toBe(0);
      b.take("a", 1, T0);
    }
    expect(b.waitMs("a", T0)).toBe(100);
    expect(b.waitMs("a", T0 + 99)).toBe(1);
    expect(b.waitMs("a", T0 + 100)).toBe(0);
    expect(b.waitMs("b", T0)).toBe(0);
  });

  test("a batch may take more than is left and owes the rest", () => {
    const b = new TokenBuckets<string>(10, 5, 100);
    b.take("a", 8, T0);
    // -3 tokens: four tenths of a second to a whole one.
    expect(b.waitMs("a", T0)).toBe(400);
    expect(b.waitMs("a", T0 + 400)).toBe(0);
  });

  test("refills no further than the burst", () => {
    const b = new TokenBuckets<string>(10, 2, 100);
    b.take("a", 2, T0);
    b.take("a", 1, T0 + 3_600_000);
    b.take("a", 1, T0 + 3_600_000);
    expect(b.waitMs("a", T0 + 3_600_000)).toBe(100);
  });

  test("keeps at most maxKeys, the most recent; a forgotten key starts full", () => {
    const b = new TokenBuckets<number>(1, 1, 50);
    for (let k = 0; k < 10_013; k++) {
      b.take(k, 1, T0);
      expect(b.size).toBeLessThanOrEqual(50);
    }
    expect(b.waitMs(0, T0)).toBe(0);
    // The last 25 taken at least are remembered.
    for (let k = 9_988; k < 10_013; k++) expect(b.waitMs(k, T0)).toBe(1000);
  });

  test("a key taken again is kept in the newer generation", () => {
    const b = new TokenBuckets<string>(1, 2, 4);
    b.take("busy", 1, T0);
    for (const k of ["a", "b", "c", "d", "e"]) {
      b.take(k, 1, T0);
      b.take("busy", 0.25, T0);
    }
    // 2 - 1 - 5 × 0.25 = -0.25 tokens: 1.25 s to a whole one (forgotten, it would be 0).
    expect(b.waitMs("busy", T0)).toBe(1250);
  });

  test("a rate of 0 is no limit", () => {
    const b = new TokenBuckets<string>(0, 1, 10);
    b.take("a", 1000, T0);
    expect(b.waitMs("a", T0)).toBe(0);
    expect(b.size).toBe(0);
  });
});
