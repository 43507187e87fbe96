import { describe, expect, test } from "bun:test";
import { memoryLogger } from "@junction/platform";
import { DEFAULT_INTAKE_CONFIG, type IntakeConfig } from "../config.ts";
import { IntakeLimits } from "./intake-limits.ts";
import { INBOUND_STALE_MS } from "./pending-work.ts";

const T0 = 1_700_000_000_000;

/** A store whose count of pending messages the test sets, counting the calls. */
function fakeStore() {
  const store = {
    pending: 0,
    calls: 0,
    async countPending(_env: string, _key: string, limit: number) {
      store.calls++;
      return Math.min(store.pending, limit);
    },
  };
  return store;
}

function limits(over: Partial<IntakeConfig>, store = fakeStore()) {
  const logger = memoryLogger();
  const config = { ...DEFAULT_INTAKE_CONFIG, ...over };
  return { l: new IntakeLimits(config, store, logger, () => T0), store, logs: logger.lines };
}

describe("intake limits", () => {
  test("an integration over its rate is refused with webhook_rate_limited and a Retry-After", async () => {
    const { l } = limits({ integrationRatePerSecond: 2, integrationBurst: 2, channelRatePerSecond: 0 });
    for (let i = 0; i < 2; i++) {
      expect(await l.admit("env", "cal", T0)).toBeNull();
      expect(l.take("env", "cal", [`ch-${i}`], T0)).toBeNull();
    }
    expect(await l.admit("env", "cal", T0)).toMatchObject({ code: "webhook_rate_limited", retryAfterSeconds: 1 });
    expect(await l.admit("env", "other", T0)).toBeNull();
    expect(await l.admit("env", "cal", T0 + 500)).toBeNull();
  });

  test("a channel over its rate is refused with channel_rate_limited, and nothing of the batch is taken", () => {
    const { l } = limits({
      integrationRatePerSecond: 1,
      integrationBurst: 3,
      channelRatePerSecond: 0.1,
      channelBurst: 1,
    });
    expect(l.take("env", "cal", ["a"], T0)).toBeNull();
    expect(l.take("env", "cal", ["b", "a"], T0)).toMatchObject({ code: "channel_rate_limited", retryAfterSeconds: 10 });
    // "b" was not taken: it passes alone, and the integration still had two tokens for it.
    expect(l.take("env", "cal", ["b", undefined], T0)).toBeNull();
    expect(l.admit("env", "cal", T0)).toMatchObject({ code: "webhook_rate_limited" });
  });

  test("pending work at the cap is refused with webhook_backlog_full; the store is counted once per interval", async () => {
    const { l, store } = limits({ maxPendingPerIntegration: 3, pendingRecountMs: 1000, fullRetryAfterMs: 30_000 });
    store.pending = 1;
    expect(await l.admit("env", "cal", T0)).toBeNull();
    l.pending.received("env", "cal", 2, T0);
    expect(await l.admit("env", "cal", T0 + 10)).toMatchObject({ code: "webhook_backlog_full", retryAfterSeconds: 30 });
    expect(store.calls).toBe(1);
    // Processed, a notification counts as a message until the store is counted again.
    l.pending.processed("env", "cal", T0);
    expect(await l.admit("env", "cal", T0 + 20)).toMatchObject({ code: "webhook_backlog_full" });
    // The store's count a second later: the messages were delivered meanwhile.
    store.pending = 0;
    expect(await l.admit("env", "cal", T0 + 1000)).toBeNull();
    expect(store.calls).toBe(2);
    store.pending = 2;
    expect(await l.admit("env", "cal", T0 + 1500)).toBeNull();
    expect(await l.admit("env", "cal", T0 + 2000)).toMatchObject({ code: "webhook_backlog_full" });
    expect(store.calls).toBe(3);
  });

  test("a notification processed but not counted here (recorded before a restart) counts nothing below zero", async () => {
    const { l, store } = limits({ maxPendingPerIntegration: 2 });
    l.pending.processed("env", "cal", T0);
    l.pending.received("env", "cal", 1, T0);
    expect(l.pending.inboundTotal).toBe(1);
    store.pending = 1;
    expect(await l.admit("env", "cal", T0)).toMatchObject({ code: "webhook_backlog_full" });
  });

  test("concurrent admissions share one count of the store", async () => {
    const { l, store } = limits({ maxPendingPerIntegration: 5 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => l.admit("env", "cal", T0)));
    expect(answers.every((a) => a === null)).toBe(true);
    expect(store.calls).toBe(1);
  });

  test("a refusal is logged once a minute per integration and code, not once per request", async () => {
    const { l, logs } = limits({ integrationRatePerSecond: 1, integrationBurst: 1 });
    l.take("env", "cal", [], T0);
    for (let i = 0; i < 100; i++) await l.admit("env", "cal", T0);
    expect(logs.filter((line) => line.includes("webhook_rate_limited"))).toHaveLength(1);
  });

  test("limits of 0 are off", async () => {
    const { l, store } = limits({ integrationRatePerSecond: 0, channelRatePerSecond: 0, maxPendingPerIntegration: 0 });
    for (let i = 0; i < 1000; i++) {
      expect(l.admit("env", "cal", T0)).toBeNull();
      expect(l.take("env", "cal", ["a"], T0)).toBeNull();
    }
    l.pending.received("env", "cal", 5, T0);
    expect(store.calls).toBe(0);
    expect(l.pending.inboundTotal).toBe(0);
  });

  test("a count of unprocessed notifications that has not fallen for five minutes is dropped (another process takes them)", async () => {
    const { l } = limits({ maxPendingPerIntegration: 2 });
    l.pending.received("env", "cal", 2, T0);
    expect(await l.admit("env", "cal", T0 + 1)).toMatchObject({ code: "webhook_backlog_full" });
    expect(await l.admit("env", "cal", T0 + INBOUND_STALE_MS - 1)).toMatchObject({ code: "webhook_backlog_full" });
    expect(await l.admit("env", "cal", T0 + INBOUND_STALE_MS)).toBeNull();
    expect(l.pending.inboundTotal).toBe(0);
  });

  test("a count that keeps falling is kept however old", async () => {
    const { l } = limits({ maxPendingPerIntegration: 3 });
    l.pending.received("env", "cal", 4, T0);
    l.pending.processed("env", "cal", T0 + INBOUND_STALE_MS - 1);
    expect(await l.admit("env", "cal", T0 + INBOUND_STALE_MS + 10)).toMatchObject({ code: "webhook_backlog_full" });
  });
});
