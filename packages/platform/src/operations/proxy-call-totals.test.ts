import { describe, expect, test } from "bun:test";
import { capturingRecorder, MINUTE_START as minute } from "../../testing/capturing-recorder.ts";
import { type Clock, ManualClock } from "../clock.ts";
import { MetricsRegistry } from "../metrics.ts";
import { OperationRecorder } from "./operation-recorder.ts";

function setUp<C extends Clock = ManualClock>(
  options: { maxProxyTotals?: number; metrics?: MetricsRegistry; clock?: C } = {},
) {
  const { clock, rec, got } = capturingRecorder<C>(options);
  const call = (latencyMs: number, fields: { connection?: string; method?: string; status?: number } = {}) =>
    rec.proxyTotals.add(
      "env_1",
      "cal",
      fields.connection ?? "c1",
      fields.method ?? "GET",
      fields.status ?? 200,
      latencyMs,
      clock.now(),
    );
  return { clock, rec, got, call };
}

describe("successful proxy calls as per-minute totals", () => {
  test("1,000 calls in a minute are one operation with their count and latency bounds, written when the minute ends", async () => {
    const { clock, rec, got, call } = setUp();
    for (let i = 0; i < 1000; i++) {
      call(1 + (i % 10));
      if (i % 100 === 99) await clock.advance(5_000);
    }
    await clock.advance(1_000);
    expect(got).toEqual([]);
    await clock.advance(10_000);
    await rec.flushed();
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({
      kind: "proxy_call",
      status: "success",
      startedAtMs: minute,
      durationMs: 60_000,
      environmentId: "env_1",
      integration: "cal",
      connection: "c1",
      title: "GET ×1000 → 200",
      messages: [],
      totals: { count: 1000, latencyMinMs: 1, latencyMaxMs: 10, latencySumMs: 5500 },
    });
    expect(rec.proxyTotals.size).toBe(0);
  });

  test("one total per (environment, integration, connection, method, status)", async () => {
    const { rec, got, call } = setUp();
    call(1);
    call(2);
    call(3, { status: 204 });
    call(4, { method: "POST" });
    call(5, { connection: "c2" });
    rec.proxyTotals.add("env_2", "cal", "c1", "GET", 200, 6, minute);
    rec.proxyTotals.add("env_1", "mail", "c1", "GET", 200, 7, minute);
    await rec.flushed();
    expect(got.map((o) => [o.environmentId, o.integration, o.connection, o.title, o.totals?.count])).toEqual([
      ["env_1", "cal", "c1", "GET ×2 → 200", 2],
      ["env_1", "cal", "c1", "GET ×1 → 204", 1],
      ["env_1", "cal", "c1", "POST ×1 → 200", 1],
      ["env_1", "cal", "c2", "GET ×1 → 200", 1],
      ["env_1", "mail", "c1", "GET ×1 → 200", 1],
      ["env_2", "cal", "c1", "GET ×1 → 200", 1],
    ]);
  });

  test("the minute boundary splits: a call of the next minute closes the last one's totals", async () => {
    // A clock whose timers never fire: the next minute's first call closes the previous minute itself.
    let now = minute + 59_000;
    const clock: Clock = { now: () => now, setTimer: () => ({ cancel() {} }) };
    const { rec, got, call } = setUp({ clock });
    call(3);
    call(4);
    now = minute + 60_000;
    call(8);
    await rec.flushed();
    expect(got.map((o) => [o.startedAtMs, o.durationMs, o.totals])).toEqual([
      [minute, 60_000, { count: 2, latencyMinMs: 3, latencyMaxMs: 4, latencySumMs: 7 }],
      [minute + 60_000, 0, { count: 1, latencyMinMs: 8, latencyMaxMs: 8, latencySumMs: 8 }],
    ]);
  });

  test("stop (flushed) writes the minute so far; the rest of the minute is a period of its own", async () => {
    const { clock, rec, got, call } = setUp();
    call(2);
    await clock.advance(20_000);
    await rec.flushed();
    expect(got.map((o) => [o.startedAtMs, o.durationMs, o.totals?.count])).toEqual([[minute, 20_000, 1]]);
    call(5);
    await clock.advance(40_000);
    await rec.flushed();
    expect(got.map((o) => [o.startedAtMs, o.durationMs, o.totals?.count])).toEqual([
      [minute, 20_000, 1],
      [minute + 20_000, 40_000, 1],
    ]);
  });

  test("past the bound of totals a minute, calls fold into their integration's overflow total and are counted", async () => {
    const metrics = new MetricsRegistry();
    const { rec, got, call } = setUp({ maxProxyTotals: 3, metrics });
    for (let i = 0; i < 10; i++) call(i + 1, { connection: `c${i}` });
    call(1, { connection: "c0" });
    rec.proxyTotals.add("env_1", "mail", "m1", "GET", 200, 20, minute);
    expect(rec.proxyTotals.size).toBe(5);
    expect(await metrics.render()).toContain("junction_operations_proxy_totals_overflow_total 8");
    await rec.flushed();
    expect(got.map((o) => [o.integration, o.connection, o.totals?.count, o.tags])).toEqual([
      ["cal", "c0", 2, []],
      ["cal", "c1", 1, []],
      ["cal", "c2", 1, []],
      ["cal", "*", 7, ["overflow"]],
      ["mail", "*", 1, ["overflow"]],
    ]);
    expect(got[3]?.totals).toEqual({ count: 7, latencyMinMs: 4, latencyMaxMs: 10, latencySumMs: 49 });
  });

  test("the overflow totals are bounded too: past them, calls of other integrations fold into one total", async () => {
    const { rec, got, call } = setUp({ maxProxyTotals: 1 });
    call(1, { connection: "c0" });
    call(2, { connection: "c1" });
    for (const integration of ["mail", "drive", "mail"])
      rec.proxyTotals.add("env_1", integration, "c1", "GET", 200, 3, minute);
    expect(rec.proxyTotals.size).toBe(3);
    await rec.flushed();
    expect(got.map((o) => [o.environmentId, o.integration, o.connection, o.totals?.count])).toEqual([
      ["env_1", "cal", "c0", 1],
      ["env_1", "cal", "*", 1],
      ["*", "*", "*", 3],
    ]);
  });

  test("nothing is kept when recording is off", async () => {
    const clock = new ManualClock(minute);
    const rec = new OperationRecorder({ clock, enabled: false });
    rec.proxyTotals.add("env_1", "cal", "c1", "GET", 200, 1, minute);
    expect(rec.proxyTotals.size).toBe(0);
    expect(clock.pending()).toBe(0);
  });
});
