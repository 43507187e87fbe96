import { describe, expect, test } from "bun:test";
import { ManualClock, openDatabase, sampleRegistry } from "@junction/platform";
import { type ProcessMetrics, processMetrics, quietLogger as quiet } from "../../testing/overview-test-kit.ts";
import { OVERVIEW_METRICS } from "./overview-readings.ts";
import { OverviewSampler } from "./overview-sampler.ts";
import { overviewSeries, quantileMs } from "./overview-series.ts";
import { HOUR_MS, MINUTE_MS, SqliteOverviewStore } from "./overview-store.ts";

function setup(sources = 1) {
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));
  const store = new SqliteOverviewStore(openDatabase(":memory:"));
  const procs = Array.from({ length: sources }, processMetrics);
  let restarted: ProcessMetrics | undefined;
  const sampler = new OverviewSampler(
    store,
    procs.map((p, i) => ({
      name: `p${i}`,
      sample: async () => sampleRegistry(i === 0 && restarted ? restarted.r : p.r, OVERVIEW_METRICS),
    })),
    clock,
    quiet,
    15_000,
  );
  const restart = () => {
    restarted = processMetrics();
    return restarted;
  };
  return { clock, store, procs, sampler, restart };
}

describe("overview sampler", () => {
  test("what was counted before the first reading is a baseline; deltas land in the minute and hour buckets", async () => {
    const { clock, store, procs, sampler } = setup();
    const p = procs[0] as ProcessMetrics;
    p.calls.add(50, "cal", "200"); // before the sampler knew the process
    await sampler.start();
    p.calls.inc("cal", "200");
    p.calls.inc("mail", "204");
    p.calls.inc("cal", "503");
    p.calls.inc("cal", "error");
    p.notifications.add(3, "cal", "received");
    p.notifications.add(2, "cal", "forwarded");
    p.rounds.inc("exhausted");
    p.runs.inc("sync", "timed_out");
    p.runs.inc("action", "succeeded");
    p.refreshes.inc("cal", "failed");
    p.latency.observe(0.02, "cal");
    await clock.advance(15_000);
    const a = await overviewSeries(store, "hour", clock.now());
    expect(a.totals.proxy_calls).toEqual({ "2xx": 2, "3xx": 0, "4xx": 0, "5xx": 1, error: 1 });
    expect(a.totals.notifications.received).toBe(3);
    expect(a.totals.notifications.forwarded).toBe(2);
    expect(a.totals.deliveries.exhausted).toBe(1);
    expect(a.totals.runs.sync).toEqual({ succeeded: 0, failed: 1 });
    expect(a.totals.runs.action).toEqual({ succeeded: 1, failed: 0 });
    expect(a.totals.refresh_failures).toBe(1);
    expect(a.times).toHaveLength(60);
    // The last point holds the sample's minute.
    expect(a.proxy_calls["2xx"]?.[59]).toBe(2);
    expect(a.proxy_latency_ms.p50[59]).toBeGreaterThan(10);
    expect(a.proxy_latency_ms.p50[59]).toBeLessThanOrEqual(25);
    expect(a.proxy_latency_ms.p50[0]).toBeNull();
    const week = await overviewSeries(store, "week", clock.now());
    expect(week.totals.proxy_calls["2xx"]).toBe(2);
    await sampler.stop();
  });

  test("a process that restarted counts from zero again: its new totals are what happened", async () => {
    const { clock, store, procs, sampler, restart } = setup(2);
    const [a, b] = procs as [ProcessMetrics, ProcessMetrics];
    a.calls.add(10, "cal", "200");
    await sampler.start();
    a.calls.add(5, "cal", "200");
    b.calls.add(1, "cal", "404");
    await clock.advance(15_000);
    const fresh = restart();
    fresh.calls.add(2, "cal", "200");
    await clock.advance(15_000);
    const t = (await overviewSeries(store, "hour", clock.now())).totals.proxy_calls;
    expect(t["2xx"]).toBe(7);
    expect(t["4xx"]).toBe(1);
    await sampler.stop();
  });

  test("a source that fails is skipped and read again the next time", async () => {
    const clock = new ManualClock();
    const store = new SqliteOverviewStore(openDatabase(":memory:"));
    const p = processMetrics();
    let up = true;
    const sampler = new OverviewSampler(
      store,
      [
        {
          name: "flaky",
          sample: async () => {
            if (!up) throw new Error("unreachable");
            return sampleRegistry(p.r, OVERVIEW_METRICS);
          },
        },
      ],
      clock,
      quiet,
      15_000,
    );
    await sampler.start();
    p.calls.inc("cal", "200");
    up = false;
    await clock.advance(15_000);
    up = true;
    p.calls.inc("cal", "200");
    await clock.advance(15_000);
    expect((await overviewSeries(store, "hour", clock.now())).totals.proxy_calls["2xx"]).toBe(2);
    await sampler.stop();
  });

  test("buckets are bounded: minute buckets kept a day, hour buckets eight days", async () => {
    const store = new SqliteOverviewStore(openDatabase(":memory:"));
    const t0 = Date.UTC(2026, 10, 1, 0, 0, 0);
    await store.add(t0, new Map([["proxy\t2xx", 4]]));
    await store.prune(t0 + 24 * HOUR_MS);
    expect(await store.read(MINUTE_MS, 0, t0 + HOUR_MS)).toHaveLength(1);
    await store.prune(t0 + 26 * HOUR_MS);
    expect(await store.read(MINUTE_MS, 0, t0 + HOUR_MS)).toHaveLength(0);
    expect(await store.read(HOUR_MS, 0, t0 + HOUR_MS)).toHaveLength(1);
    await store.prune(t0 + 8 * 24 * HOUR_MS + HOUR_MS);
    expect(await store.read(HOUR_MS, 0, t0 + HOUR_MS)).toHaveLength(0);
  });
});

describe("quantiles from a histogram", () => {
  test("interpolated within the bucket that holds the rank; null when empty", () => {
    expect(quantileMs(new Map(), 0.5)).toBeNull();
    // 10 calls ≤ 5 ms, 10 in (5, 10] ms: p50 at the first bucket's bound, p95 near 10 ms.
    const h = new Map([
      [0.005, 10],
      [0.01, 10],
    ]);
    expect(quantileMs(h, 0.5)).toBe(5);
    expect(quantileMs(h, 0.95)).toBe(9.5);
    // Past the last bound: reported at that bound.
    expect(
      quantileMs(
        new Map([
          [Number.POSITIVE_INFINITY, 3],
          [30, 0],
        ]),
        0.95,
      ),
    ).toBe(30_000);
  });
});
