import { describe, expect, test } from "bun:test";
import { DeadlineWatch } from "./deadline-watch.ts";

describe("deadline watch", () => {
  test("aborts an attempt once it outlives its deadline, and says so", () => {
    let now = 0;
    const watch = new DeadlineWatch(() => now);
    const controller = new AbortController();
    const w = watch.watch(controller, 1_000);
    now = 999;
    watch.sweep();
    expect(controller.signal.aborted).toBe(false);
    expect(w.timedOut()).toBe(false);
    now = 1_000;
    watch.sweep();
    expect(controller.signal.aborted).toBe(true);
    expect(w.timedOut()).toBe(true);
  });

  test("an attempt marked done is never aborted", () => {
    let now = 0;
    const watch = new DeadlineWatch(() => now);
    const finished = new AbortController();
    const pending = new AbortController();
    watch.watch(finished, 10).done();
    watch.watch(pending, 10);
    now = 50;
    watch.sweep();
    expect(finished.signal.aborted).toBe(false);
    expect(pending.signal.aborted).toBe(true);
  });

  test("attempts finishing in any order: only the ones still pending are aborted, each once", () => {
    let now = 0;
    const watch = new DeadlineWatch(() => now);
    const attempts = Array.from({ length: 50 }, (_, i) => {
      const controller = new AbortController();
      let aborts = 0;
      controller.signal.addEventListener("abort", () => aborts++);
      return { controller, watched: watch.watch(controller, 10 + (i % 3)), aborts: () => aborts };
    });
    for (const [i, a] of attempts.entries()) if (i % 4 === 1 || i % 7 === 0) a.watched.done();
    attempts[3]?.watched.done();
    attempts[3]?.watched.done(); // twice is harmless
    now = 11;
    watch.sweep();
    now = 100;
    watch.sweep();
    watch.sweep();
    for (const [i, a] of attempts.entries()) {
      const finished = i % 4 === 1 || i % 7 === 0 || i === 3;
      expect(a.aborts()).toBe(finished ? 0 : 1);
      expect(a.watched.timedOut()).toBe(!finished);
    }
  });

  test("its own timer does the sweeping", async () => {
    const watch = new DeadlineWatch();
    const controller = new AbortController();
    watch.watch(controller, 20);
    await new Promise<void>((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error("not aborted within 5 s")), 5_000);
      controller.signal.addEventListener("abort", () => {
        clearTimeout(guard);
        resolve();
      });
    });
  });

  test("an attempt whose caller has gone is aborted by the first sweep 100 ms after it started, and it is no timeout", () => {
    let now = 0;
    const watch = new DeadlineWatch(() => now);
    let reads = 0;
    let gone = false;
    const caller = {
      get signal() {
        reads++;
        return { aborted: gone } as AbortSignal;
      },
    };
    const there = { signal: { aborted: false } as AbortSignal };
    const leaving = new AbortController();
    const staying = new AbortController();
    const left = watch.watch(leaving, 60_000, caller);
    watch.watch(staying, 60_000, there);
    gone = true;
    now = 99;
    watch.sweep();
    // Not asked yet: quick attempts never make their request's signal.
    expect(reads).toBe(0);
    expect(leaving.signal.aborted).toBe(false);
    now = 100;
    watch.sweep();
    expect(reads).toBe(1);
    expect(leaving.signal.aborted).toBe(true);
    expect(left.timedOut()).toBe(false);
    now = 50_000;
    watch.sweep();
    expect(staying.signal.aborted).toBe(false);
    expect(reads).toBe(1);
  });
});
