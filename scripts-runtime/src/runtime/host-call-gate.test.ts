import { describe, expect, test } from "bun:test";
import { HostCallGate } from "./host-call-gate.ts";

describe("HostCallGate", () => {
  test("serves at most maxConcurrent calls; the rest wait in line and go in order", async () => {
    const gate = new HostCallGate({ maxConcurrent: 2, maxBytesInFlight: 1000 });
    const order: number[] = [];
    const entered = [1, 2, 3, 4].map((n) => gate.enter(10).then(() => order.push(n)));
    await Promise.all(entered.slice(0, 2));
    expect(order).toEqual([1, 2]);
    expect(gate.load).toEqual({ active: 2, waiting: 2, bytes: 40 });
    gate.leave(10);
    await entered[2];
    expect(order).toEqual([1, 2, 3]);
    gate.leave(10);
    gate.leave(10);
    await entered[3];
    gate.leave(10);
    expect(gate.load).toEqual({ active: 0, waiting: 0, bytes: 0 });
  });

  test("refuses at once a call whose arguments would pass the bytes in flight", async () => {
    const gate = new HostCallGate({ maxConcurrent: 10, maxBytesInFlight: 100 });
    expect(await gate.enter(60)).toEqual({ admitted: true });
    const refused = await gate.enter(50);
    expect(refused.admitted).toBe(false);
    expect(refused).toMatchObject({ message: expect.stringContaining("more than 100 bytes") });
    gate.leave(60);
    expect(await gate.enter(50)).toEqual({ admitted: true });
  });
});
