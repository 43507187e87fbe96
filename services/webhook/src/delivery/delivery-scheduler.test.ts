import { describe, expect, test } from "bun:test";
import { ManualClock, memoryLogger } from "@junction/platform";
import { DeliveryScheduler } from "./delivery-scheduler.ts";

/** A scheduler whose rounds are recorded and finished by the test. */
function setup(concurrency = 2, next: (id: string, round: number) => number | null = () => null) {
  const clock = new ManualClock();
  const runs: Array<{ id: string; at: number }> = [];
  const open = new Map<string, () => void>();
  const rounds = new Map<string, number>();
  const scheduler = new DeliveryScheduler({
    clock,
    logger: memoryLogger(),
    concurrency,
    runRound: (id) => {
      runs.push({ id, at: clock.now() });
      const round = (rounds.get(id) ?? 0) + 1;
      rounds.set(id, round);
      return new Promise((resolve) => open.set(id, () => resolve(next(id, round))));
    },
  });
  const finish = async (id: string) => {
    open.get(id)?.();
    open.delete(id);
    await tick();
  };
  return { clock, runs, scheduler, finish, open };
}

const tick = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
};

describe("DeliveryScheduler", () => {
  test("runs a message due now at once, even on a manual clock", async () => {
    const { clock, runs, scheduler } = setup();
    scheduler.start();
    scheduler.schedule("m1", clock.now());
    await tick();
    expect(runs).toEqual([{ id: "m1", at: clock.now() }]);
  });

  test("runs a later message only when the clock reaches its time", async () => {
    const { clock, runs, scheduler } = setup();
    scheduler.start();
    const t0 = clock.now();
    scheduler.schedule("m1", t0 + 5000);
    await clock.advance(4999);
    expect(runs).toEqual([]);
    await clock.advance(1);
    expect(runs).toEqual([{ id: "m1", at: t0 + 5000 }]);
  });

  test("reschedules a message at the time its round returns, until it is final", async () => {
    const { clock, runs, scheduler, finish } = setup(2, (_, round) => (round < 3 ? clock.now() + 1000 : null));
    scheduler.start();
    const t0 = clock.now();
    scheduler.schedule("m1", t0);
    await tick();
    await finish("m1");
    await clock.advance(1000);
    await finish("m1");
    await clock.advance(1000);
    await finish("m1");
    await clock.advance(10_000);
    expect(runs.map((r) => r.at - t0)).toEqual([0, 1000, 2000]);
    expect(scheduler.waiting).toBe(0);
  });

  test("runs at most `concurrency` rounds at once, earliest due first", async () => {
    const { clock, runs, scheduler, finish } = setup(2);
    const t0 = clock.now();
    for (const [id, at] of [
      ["late", t0 - 1],
      ["first", t0 - 30],
      ["second", t0 - 20],
    ] as const)
      scheduler.schedule(id, at);
    scheduler.start();
    await tick();
    expect(runs.map((r) => r.id)).toEqual(["first", "second"]);
    await finish("first");
    expect(runs.map((r) => r.id)).toEqual(["first", "second", "late"]);
  });

  test("a message scheduled again while its round runs gets one more round after, never two at once", async () => {
    const { clock, runs, scheduler, finish, open } = setup(4);
    scheduler.start();
    scheduler.schedule("m1", clock.now());
    await tick();
    scheduler.schedule("m1", clock.now());
    await tick();
    expect(runs).toHaveLength(1);
    expect(open.size).toBe(1);
    await finish("m1");
    expect(runs).toHaveLength(2);
  });

  test("a round that throws is tried again later", async () => {
    const clock = new ManualClock();
    let calls = 0;
    const scheduler = new DeliveryScheduler({
      clock,
      logger: memoryLogger(),
      concurrency: 1,
      runRound: async () => {
        calls++;
        if (calls === 1) throw new Error("store unreachable");
        return null;
      },
    });
    scheduler.start();
    scheduler.schedule("m1", clock.now());
    await tick();
    expect(calls).toBe(1);
    await clock.advance(5000);
    await tick();
    expect(calls).toBe(2);
  });

  test("stop waits for a stuck round only for its grace period", async () => {
    const { clock, scheduler } = setup(1);
    scheduler.start();
    scheduler.schedule("stuck", clock.now());
    await tick();
    const started = Date.now();
    await scheduler.stop(50);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test("stop waits for the rounds in flight and starts nothing more", async () => {
    const { clock, runs, scheduler, finish } = setup(1);
    scheduler.start();
    scheduler.schedule("m1", clock.now());
    scheduler.schedule("m2", clock.now());
    await tick();
    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    await tick();
    expect(stopped).toBe(false);
    await finish("m1");
    await stopping;
    expect(runs.map((r) => r.id)).toEqual(["m1"]);
  });
});
