import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, memoryLogger, openDatabase } from "@junction/platform";
import { busConformance } from "./bus.conformance.ts";
import { MemoryBus } from "./memory-bus.ts";
import { waitFor } from "./testing/wait-for.ts";

busConformance("in-memory", async () => {
  const bus = new MemoryBus(undefined, { logger: memoryLogger() });
  return { bus, cleanup: () => bus.close() };
});

busConformance("SQLite-backed in-process", async () => {
  const dir = await mkdtemp(join(tmpdir(), "junction-bus-"));
  const path = join(dir, "bus.sqlite");
  const opened: { db: Database; bus: MemoryBus }[] = [];
  const open = () => {
    const db = openDatabase(path);
    const bus = new MemoryBus(db, { logger: memoryLogger() });
    opened.push({ db, bus });
    return bus;
  };
  return {
    bus: open(),
    reopen: async () => open(),
    cleanup: async () => {
      for (const { db, bus } of opened) {
        await bus.close();
        db.close();
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe("MemoryBus", () => {
  test("a job is in the SQLite file by the time enqueue resolves", async () => {
    const dir = await mkdtemp(join(tmpdir(), "junction-bus-"));
    const path = join(dir, "bus.sqlite");
    const db = openDatabase(path);
    const bus = new MemoryBus(db, { logger: memoryLogger() });
    try {
      await bus.enqueue("durable.check", new TextEncoder().encode("x"));
      const other = openDatabase(path);
      const row = other.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM bus_jobs").get();
      other.close();
      expect(row?.n).toBe(1);
    } finally {
      await bus.close();
      db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a msgId is accepted again once the de-duplication window has passed", async () => {
    const clock = new ManualClock();
    const bus = new MemoryBus(undefined, { clock, dedupWindowMs: 60_000, logger: memoryLogger() });
    const data = new TextEncoder().encode("x");
    expect(await bus.enqueue("q", data, { msgId: "m" })).toEqual({ duplicate: false });
    await clock.advance(59_999);
    expect(await bus.enqueue("q", data, { msgId: "m" })).toEqual({ duplicate: true });
    await clock.advance(1);
    expect(await bus.enqueue("q", data, { msgId: "m" })).toEqual({ duplicate: false });
    await bus.close();
  });

  test("a nak delay runs on the injected clock", async () => {
    const clock = new ManualClock();
    const bus = new MemoryBus(undefined, { clock, logger: memoryLogger() });
    const counts: number[] = [];
    await bus.consume("q", async (job) => {
      counts.push(job.deliveryCount);
      if (job.deliveryCount === 1) await job.nak(3_600_000);
      else await job.ack();
    });
    await bus.enqueue("q", new TextEncoder().encode("x"));
    await waitFor(() => counts.length === 1, 1_000, "first delivery");

    await clock.advance(3_599_999);
    expect(counts).toEqual([1]);
    await clock.advance(1);
    await waitFor(() => counts.length === 2, 1_000, "redelivery an hour later");
    await bus.close();
  });

  test("a closed bus refuses new work", async () => {
    const bus = new MemoryBus(undefined, { logger: memoryLogger() });
    await bus.close();
    expect(bus.enqueue("q", new Uint8Array())).rejects.toThrow("bus is closed");
  });
});
