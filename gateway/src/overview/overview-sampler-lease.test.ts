import { describe, expect, test } from "bun:test";
import { type Clock, ManualClock, openDatabase, sampleRegistry } from "@junction/platform";
import { type ProcessMetrics, processMetrics, quietLogger } from "../../testing/overview-test-kit.ts";
import { OVERVIEW_METRICS } from "./overview-readings.ts";
import { type MetricsSource, OverviewSampler } from "./overview-sampler.ts";
import { overviewSeries } from "./overview-series.ts";
import { type OverviewStore, SqliteOverviewStore } from "./overview-store.ts";

// Several gateways on one overview store, all reading the same service processes: the services' counts
// are added once (by the sampling lease's holder), each gateway's own counts by that gateway.

const INTERVAL = 15_000;
const LEASE = 3 * INTERVAL;

/** A clock for one gateway that can die: after `crash()` its timers never fire and it writes nothing. */
function mortal(clock: ManualClock): { clock: Clock; crash(): void } {
  let alive = true;
  return {
    clock: { now: () => clock.now(), setTimer: (fn, ms) => clock.setTimer(() => alive && fn(), ms) },
    crash: () => {
      alive = false;
    },
  };
}

/** A gateway's sampler: its own registry (not shared) and the service process every gateway reads. */
function gateway(store: OverviewStore, service: MetricsSource, clock: Clock) {
  const own = processMetrics();
  const sampler = new OverviewSampler(
    store,
    [{ name: "gateway", sample: async () => sampleRegistry(own.r, OVERVIEW_METRICS) }, service],
    clock,
    quietLogger,
    INTERVAL,
  );
  return { own, sampler };
}

function setup() {
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));
  const store = new SqliteOverviewStore(openDatabase(":memory:"));
  const service = processMetrics();
  const source: MetricsSource = {
    name: "connection",
    shared: true,
    sample: async () => sampleRegistry(service.r, OVERVIEW_METRICS),
  };
  const totals = async () => (await overviewSeries(store, "hour", clock.now())).totals;
  return { clock, store, service, source, totals };
}

/** One refresh failure in the service process, then one interval of both gateways' readings. */
async function step(service: ProcessMetrics, clock: ManualClock, times = 1): Promise<void> {
  for (let i = 0; i < times; i++) {
    service.refreshes.inc("cal", "failed");
    await clock.advance(INTERVAL);
  }
}

describe("several gateways sampling one overview store", () => {
  test("each service's counts are added once; each gateway's own calls by that gateway", async () => {
    const { clock, store, service, source, totals } = setup();
    service.refreshes.add(20, "cal", "failed"); // before either gateway knew the process
    const a = gateway(store, source, clock);
    const b = gateway(store, source, clock);
    await a.sampler.start();
    await b.sampler.start();
    for (let i = 0; i < 4; i++) {
      service.refreshes.add(2, "cal", "failed");
      service.notifications.inc("cal", "received");
      a.own.calls.inc("cal", "200");
      b.own.calls.add(2, "cal", "200");
      await clock.advance(INTERVAL);
    }
    const t = await totals();
    expect(t.refresh_failures).toBe(8);
    expect(t.notifications.received).toBe(4);
    expect(t.proxy_calls["2xx"]).toBe(12);
    await a.sampler.stop();
    await b.sampler.stop();
  });

  test("a holder that dies: another takes the lease once it runs out, from a fresh baseline, nothing twice", async () => {
    const { clock, store, service, source, totals } = setup();
    const dying = mortal(clock);
    const a = gateway(store, source, dying.clock);
    const b = gateway(store, source, clock);
    await a.sampler.start();
    await b.sampler.start();
    await step(service, clock, 4);
    expect((await totals()).refresh_failures).toBe(4);
    // A's last reading renewed the lease until now + LEASE; the failures until B's first reading after
    // that are no one's (B's first reading as holder is its baseline), and none is counted twice.
    dying.crash();
    const lost = LEASE / INTERVAL;
    await step(service, clock, lost);
    expect((await totals()).refresh_failures).toBe(4);
    await step(service, clock, 3);
    expect((await totals()).refresh_failures).toBe(4 + 3);
    // The gap is the lease: not the dead holder's history dumped at once, nor a count doubled.
    await step(service, clock, 5);
    expect((await totals()).refresh_failures).toBe(4 + 3 + 5);
    await b.sampler.stop();
  });

  test("a holder stopping gives the lease up: another takes it at its next reading", async () => {
    const { clock, store, service, source, totals } = setup();
    const a = gateway(store, source, clock);
    const b = gateway(store, source, clock);
    await a.sampler.start();
    await b.sampler.start();
    await step(service, clock, 2);
    await a.sampler.stop();
    // One interval's failure is between A's last reading and B's baseline.
    await step(service, clock, 3);
    expect((await totals()).refresh_failures).toBe(2 + 2);
    await b.sampler.stop();
  });

  test("services read after the lease ran out are not added: the gateway that took it over counts them", async () => {
    const { clock, store, service, source, totals } = setup();
    let stall: Promise<void> | undefined;
    let unstall = () => {};
    const slow: MetricsSource = {
      ...source,
      sample: async () => {
        await stall;
        return source.sample();
      },
    };
    const a = gateway(store, slow, clock);
    const b = gateway(store, source, clock);
    await a.sampler.start();
    await b.sampler.start();
    stall = new Promise<void>((resolve) => {
      unstall = resolve;
    });
    // A renews the lease at its next reading, then waits on the service past the lease's end.
    await step(service, clock);
    await clock.advance(LEASE);
    // B took the lease and its baseline; this failure is after it, and A's late reading holds it too.
    service.refreshes.inc("cal", "failed");
    stall = undefined;
    unstall();
    await clock.advance(0);
    await clock.advance(INTERVAL);
    expect((await totals()).refresh_failures).toBe(1);
    await a.sampler.stop();
    await b.sampler.stop();
  });
});
