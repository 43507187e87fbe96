import { describe, expect, test } from "bun:test";
import type { ProxyControls } from "./proxy-controls.ts";
import { backoffDelay, isRetryableStatus, retryAfterDelay, retryBudget } from "./retry-policy.ts";

const policy = {
  defaultRetries: 2,
  maxRetries: 10,
  retryBaseDelayMs: 100,
  retryMaxDelayMs: 1000,
  maxRetryAfterMs: 5000,
};
const controls = (over: Partial<ProxyControls> = {}): ProxyControls => ({
  providerConfigKey: "cal",
  connectionId: "a",
  retries: undefined,
  retryOn: new Set(),
  baseUrlOverride: undefined,
  decompress: false,
  ...over,
});

describe("retry policy", () => {
  test("idempotent methods get the default; POST and PATCH none unless the caller asks", () => {
    for (const m of ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]) expect(retryBudget(m, controls(), policy)).toBe(2);
    for (const m of ["POST", "PATCH"]) expect(retryBudget(m, controls(), policy)).toBe(0);
    expect(retryBudget("POST", controls({ retries: 4 }), policy)).toBe(4);
    expect(retryBudget("POST", controls({ retryOn: new Set([409]) }), policy)).toBe(2);
    expect(retryBudget("GET", controls({ retries: 0 }), policy)).toBe(0);
    expect(retryBudget("GET", controls({ retries: 500 }), policy)).toBe(10);
  });

  test("retries 429, 5xx and the caller's Retry-On statuses", () => {
    expect([429, 500, 502, 503, 504, 599].every((s) => isRetryableStatus(s, new Set()))).toBe(true);
    expect([400, 401, 404, 409, 200, 304].some((s) => isRetryableStatus(s, new Set()))).toBe(false);
    expect(isRetryableStatus(409, new Set([409]))).toBe(true);
  });

  test("backoff doubles from the base with full jitter, capped", () => {
    expect(backoffDelay(0, policy, () => 0.999)).toBe(99);
    expect(backoffDelay(2, policy, () => 0.5)).toBe(200);
    expect(backoffDelay(10, policy, () => 0.999)).toBe(999);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
  });

  test("Retry-After in seconds or as a date, clamped to the bound", () => {
    const now = Date.UTC(2026, 0, 1);
    expect(retryAfterDelay("2", now, policy)).toBe(2000);
    expect(retryAfterDelay("3600", now, policy)).toBe(5000);
    expect(retryAfterDelay(new Date(now + 3000).toUTCString(), now, policy)).toBe(3000);
    expect(retryAfterDelay(new Date(now - 3000).toUTCString(), now, policy)).toBe(0);
    expect(retryAfterDelay("soon", now, policy)).toBeUndefined();
    expect(retryAfterDelay(null, now, policy)).toBeUndefined();
  });
});
