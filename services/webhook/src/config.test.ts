import { describe, expect, test } from "bun:test";
import { ConfigError } from "@junction/platform";
import { DEFAULT_DELIVERY_CONFIG, loadAllowPrivateEndpoints, loadDeliveryConfig, parseDuration } from "./config.ts";

describe("parseDuration", () => {
  test.each([
    ["250ms", 250],
    ["5s", 5000],
    ["30m", 1_800_000],
    ["2h", 7_200_000],
    ["5d", 432_000_000],
    ["1500", 1500],
    ["0.5s", 500],
    [" 10 s ", 10_000],
  ])("%p is %p ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  test.each(["", "5 weeks", "-1s", "s", "1e3"])("%p is not a duration", (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});

describe("loadDeliveryConfig", () => {
  test("defaults to Svix's schedule, 15 s timeouts and disabling after 5 days", () => {
    expect(DEFAULT_DELIVERY_CONFIG).toMatchObject({
      retryScheduleMs: [0, 5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      attemptTimeoutMs: 15_000,
      retryAfterMaxMs: 3_600_000,
      disableAfterMs: 5 * 86_400_000,
      retryJitter: 0.1,
    });
  });

  test("reads JUNCTION_WEBHOOK_* variables", () => {
    const cfg = loadDeliveryConfig({
      JUNCTION_WEBHOOK_RETRY_SCHEDULE: "1s, 2s ,1m",
      JUNCTION_WEBHOOK_DELIVERY_TIMEOUT: "3s",
      JUNCTION_WEBHOOK_DISABLE_AFTER: "0",
      JUNCTION_WEBHOOK_DELIVERY_CONCURRENCY: "4",
      JUNCTION_WEBHOOK_RETRY_JITTER: "0",
    });
    expect(cfg).toMatchObject({
      retryScheduleMs: [1000, 2000, 60_000],
      attemptTimeoutMs: 3000,
      disableAfterMs: 0,
      concurrency: 4,
      retryJitter: 0,
    });
  });

  test("names the variable of a bad value", () => {
    expect(() => loadDeliveryConfig({ JUNCTION_WEBHOOK_RETRY_SCHEDULE: "soon" })).toThrow(ConfigError);
    expect(() => loadDeliveryConfig({ JUNCTION_WEBHOOK_RETRY_SCHEDULE: "soon" })).toThrow(
      /JUNCTION_WEBHOOK_RETRY_SCHEDULE/,
    );
    expect(() => loadDeliveryConfig({ JUNCTION_WEBHOOK_DELIVERY_TIMEOUT: "fast" })).toThrow(
      /JUNCTION_WEBHOOK_DELIVERY_TIMEOUT/,
    );
    expect(() => loadDeliveryConfig({ JUNCTION_WEBHOOK_RETRY_JITTER: "2" })).toThrow(/JUNCTION_WEBHOOK_RETRY_JITTER/);
  });
});

describe("loadAllowPrivateEndpoints", () => {
  test("reads JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS through the config schema (off unless set)", () => {
    expect(loadAllowPrivateEndpoints({})).toBe(false);
    expect(loadAllowPrivateEndpoints({ JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "true" })).toBe(true);
    expect(loadAllowPrivateEndpoints({ JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "0" })).toBe(false);
    expect(() => loadAllowPrivateEndpoints({ JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "sure" })).toThrow(
      /JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS/,
    );
  });
});
