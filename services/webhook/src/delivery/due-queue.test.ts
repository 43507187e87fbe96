import { describe, expect, test } from "bun:test";
import { DueQueue } from "./due-queue.ts";

describe("DueQueue", () => {
  test("hands out due ids earliest first, and nothing before its time", () => {
    const q = new DueQueue();
    q.offer("c", 30);
    q.offer("a", 10);
    q.offer("b", 20);
    expect(q.earliest()).toBe(10);
    expect(q.takeDue(5)).toBeUndefined();
    expect(q.takeDue(25)).toBe("a");
    expect(q.takeDue(25)).toBe("b");
    expect(q.takeDue(25)).toBeUndefined();
    expect(q.size).toBe(1);
    expect(q.takeDue(30)).toBe("c");
    expect(q.earliest()).toBeUndefined();
  });

  test("keeps the earlier of two times for one id, and each id once", () => {
    const q = new DueQueue();
    q.offer("a", 50);
    q.offer("a", 20);
    q.offer("a", 40);
    expect(q.size).toBe(1);
    expect(q.earliest()).toBe(20);
    expect(q.takeDue(100)).toBe("a");
    expect(q.takeDue(100)).toBeUndefined();
  });

  test("stays ordered over a large shuffled backlog", () => {
    const q = new DueQueue();
    const times = Array.from({ length: 5000 }, (_, i) => (i * 7919) % 5000);
    for (const [i, t] of times.entries()) q.offer(`m${i}`, t);
    const out: number[] = [];
    for (let id = q.takeDue(10_000); id !== undefined; id = q.takeDue(10_000)) out.push(Number(id.slice(1)));
    expect(out).toHaveLength(5000);
    const seen = out.map((i) => times[i] as number);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });
});
