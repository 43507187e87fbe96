import { describe, expect, test } from "bun:test";
import { ManualClock } from "./clock.ts";

describe("ManualClock", () => {
  test("fires timers in order as time advances, hours in milliseconds", async () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    clock.setTimer(() => fired.push("2h"), 2 * 3600_000);
    clock.setTimer(() => fired.push("5s"), 5_000);
    const cancelled = clock.setTimer(() => fired.push("never"), 1_000);
    cancelled.cancel();
    await clock.advance(4_000);
    expect(fired).toEqual([]);
    await clock.advance(3 * 3600_000);
    expect(fired).toEqual(["5s", "2h"]);
    expect(clock.now()).toBe(4_000 + 3 * 3600_000);
  });

  test("runs timers scheduled by timers within the same advance", async () => {
    const clock = new ManualClock(0);
    const times: number[] = [];
    const tick = () => {
      times.push(clock.now());
      if (times.length < 3) clock.setTimer(tick, 10);
    };
    clock.setTimer(tick, 10);
    await clock.advance(100);
    expect(times).toEqual([10, 20, 30]);
  });
});
