import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, memoryLogger, openDatabase } from "@junction/platform";
import { busConformance } from "./bus.conformance.ts";
import { MemoryBus } from "./memory-bus.ts";
import { waitFor } from "../testing/wait-for.ts";

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
  /** A bus on a fresh file with a `marks` table for companion writes. */
  const companionBus = () => {
    const db = openDatabase(":memory:");
    db.exec("CREATE TABLE marks (name TEXT PRIMARY KEY)");
    const bus = new MemoryBus(db, { logger: memoryLogger() });
    const mark = (name: string) => () =>
      db.query("INSERT INTO marks (name) VALUES (?) ON CONFLICT DO NOTHING").run(name).changes === 1;
    const count = (table: string) => db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n;
    return { db, bus, mark, count };
  };

  test("a companion write commits with its job, and none is stored when it answers false", async () => {
    const { db, bus, mark, count } = companionBus();
    try {
      expect(bus.acceptsCompanion(db)).toBe(true);
      expect(bus.acceptsCompanion(openDatabase(":memory:"))).toBe(false);
      const data = new TextEncoder().encode("x");
      expect(await bus.enqueue("companion.q", data, { companion: { database: db, write: mark("a") } })).toEqual({
        duplicate: false,
      });
      expect(await bus.enqueue("companion.q", data, { companion: { database: db, write: mark("a") } })).toEqual({
        duplicate: true,
      });
      expect([count("marks"), count("bus_jobs")]).toEqual([1, 1]);
    } finally {
      await bus.close();
      db.close();
    }
  });

  test("a companion write is rolled back when its job cannot be stored, and refused on another database", async () => {
    const { db, bus, mark, count } = companionBus();
    try {
      // The job insert fails (its table gone): the companion's write must not stand alone.
      db.exec("ALTER TABLE bus_jobs RENAME TO bus_jobs_away");
      const data = new TextEncoder().encode("x");
      await expect(
        bus.enqueue("companion.q", data, { companion: { database: db, write: mark("b") } }),
      ).rejects.toThrow();
      expect(count("marks")).toBe(0);
      const other = openDatabase(":memory:");
      await expect(
        bus.enqueue("companion.q", data, { companion: { database: other, write: () => true } }),
      ).rejects.toThrow("own database");
    } finally {
      await bus.close();
      db.close();
    }
  });

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

  describe("jobs handed straight to a consumer with a free slot", () => {
    const encode = (text: string) => new TextEncoder().encode(text);
    const decode = (data: Uint8Array) => new TextDecoder().decode(data);

    /** A SQLite-backed bus on a manual clock, and a way to read its jobs table. */
    async function sqliteBus() {
      const dir = await mkdtemp(join(tmpdir(), "junction-bus-"));
      const db = openDatabase(join(dir, "bus.sqlite"));
      const clock = new ManualClock(1_000_000);
      const bus = new MemoryBus(db, { clock, logger: memoryLogger() });
      const rows = () =>
        db
          .query<{ deliveries: number; available_at: number }, []>(
            "SELECT deliveries, available_at FROM bus_jobs ORDER BY id",
          )
          .all();
      /** Rows inserted, updated or deleted on the bus's connection so far. */
      const changes = () => db.query<{ n: number }, []>("SELECT total_changes() AS n").get()?.n ?? 0;
      return {
        bus,
        clock,
        rows,
        changes,
        cleanup: async () => {
          await bus.close();
          db.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    }

    test("a job enqueued while a consumer has room is stored already claimed (no claim write) and delivered once", async () => {
      const { bus, clock, rows, changes, cleanup } = await sqliteBus();
      try {
        const got: number[] = [];
        let release = () => {};
        const settled = new Promise<void>((resolve) => {
          release = resolve;
        });
        await bus.consume(
          "handoff",
          async (job) => {
            got.push(job.deliveryCount);
            await settled;
            await job.ack();
          },
          { ackWaitMs: 30_000 },
        );
        const before = changes();
        await bus.enqueue("handoff", encode("x"));
        // Committed claimed: its first delivery counted and its lease set, as a claim would leave it.
        expect(rows()).toEqual([{ deliveries: 1, available_at: clock.now() + 30_000 }]);
        await waitFor(() => got.length === 1, 1_000, "the delivery");
        // One row written (the insert), none updated: no claim.
        expect(changes() - before).toBe(1);
        release();
        await waitFor(() => rows().length === 0, 1_000, "the ack");
        expect(got).toEqual([1]);
      } finally {
        await cleanup();
      }
    });

    test("a handed-over job left unsettled is delivered again when its ack wait has passed on the clock", async () => {
      const { bus, clock, cleanup } = await sqliteBus();
      try {
        const got: number[] = [];
        await bus.consume(
          "handoff-lease",
          async (job) => {
            got.push(job.deliveryCount);
            if (job.deliveryCount > 1) await job.ack();
          },
          { ackWaitMs: 3_600_000, concurrency: 4 },
        );
        await bus.enqueue("handoff-lease", encode("x"));
        await waitFor(() => got.length === 1, 1_000, "the first delivery");
        await clock.advance(3_599_999);
        expect(got).toEqual([1]);
        await clock.advance(1);
        await waitFor(() => got.length === 2, 1_000, "the redelivery an hour later");
        expect(got).toEqual([1, 2]);
      } finally {
        await cleanup();
      }
    });

    test("a handed-over job carries what its bytes encode; one that waited for a slot or is redelivered does not", async () => {
      const { bus, clock, cleanup } = await sqliteBus();
      try {
        const got: [string, unknown][] = [];
        let open = () => {};
        const gate = new Promise<void>((resolve) => {
          open = resolve;
        });
        await bus.consume(
          "handoff-decoded",
          async (job) => {
            got.push([decode(job.data), job.decoded]);
            // The first delivery of "a" holds the one slot, then returns unsettled (redelivered later).
            if (decode(job.data) === "a" && job.deliveryCount === 1) return gate;
            await job.ack();
          },
          { ackWaitMs: 1_000, concurrency: 1 },
        );
        const decodedA = { text: "a" };
        await bus.enqueue("handoff-decoded", encode("a"), { decoded: decodedA });
        await waitFor(() => got.length === 1, 1_000, "a's delivery");
        expect(got[0]?.[1]).toBe(decodedA);
        // No free slot: "b" waits in the store, and is decoded by its consumer when its turn comes.
        await bus.enqueue("handoff-decoded", encode("b"), { decoded: { text: "b" } });
        open();
        await waitFor(() => got.length === 2, 1_000, "b's delivery");
        await clock.advance(1_000);
        await waitFor(() => got.length === 3, 1_000, "a's redelivery");
        expect(got).toEqual([
          ["a", decodedA],
          ["b", undefined],
          ["a", undefined],
        ]);
      } finally {
        await cleanup();
      }
    });

    for (const store of ["in-memory", "SQLite"] as const) {
      test(`jobs waiting for a slot are not overtaken by later ones (${store} store)`, async () => {
        const sqlite = store === "SQLite" ? await sqliteBus() : undefined;
        const bus = sqlite?.bus ?? new MemoryBus(undefined, { logger: memoryLogger() });
        try {
          const order: string[] = [];
          const gate = Promise.withResolvers<void>();
          await bus.consume("fifo", async (job) => {
            const text = decode(job.data);
            order.push(text);
            if (text === "a") await gate.promise;
            await job.ack();
          });
          await bus.enqueue("fifo", encode("a")); // handed over: the only slot is now busy
          await waitFor(() => order.length === 1, 1_000, "a");
          await bus.enqueue("fifo", encode("b"));
          await bus.enqueue("fifo", encode("c"));
          // Two more turns: a job wrongly handed to the busy consumer would have started by now.
          for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
          expect(order).toEqual(["a"]);
          gate.resolve();
          await waitFor(() => order.length === 3, 1_000, "b and c");
          await bus.enqueue("fifo", encode("d")); // nothing waits any more: handed over again
          await waitFor(() => order.length === 4, 1_000, "d");
          expect(order).toEqual(["a", "b", "c", "d"]);
        } finally {
          if (sqlite) await sqlite.cleanup();
          else await bus.close();
        }
      });

      test(`a duplicate enqueue gives its reserved slot back (${store} store)`, async () => {
        const sqlite = store === "SQLite" ? await sqliteBus() : undefined;
        const bus = sqlite?.bus ?? new MemoryBus(undefined, { logger: memoryLogger() });
        try {
          const got: string[] = [];
          await bus.consume("dup-slot", async (job) => {
            got.push(decode(job.data));
            await job.ack();
          });
          expect(await bus.enqueue("dup-slot", encode("first"), { msgId: "m" })).toEqual({ duplicate: false });
          expect(await bus.enqueue("dup-slot", encode("again"), { msgId: "m" })).toEqual({ duplicate: true });
          // With the slot still held by the duplicate, this job would never be delivered.
          await bus.enqueue("dup-slot", encode("next"));
          await waitFor(() => got.length === 2, 1_000, "the next job");
          expect(got).toEqual(["first", "next"]);
        } finally {
          if (sqlite) await sqlite.cleanup();
          else await bus.close();
        }
      });
    }

    test("a job left unsettled by a consumer that stopped is delivered to the next one when its ack wait has passed", async () => {
      const { bus, clock, cleanup } = await sqliteBus();
      try {
        const first: number[] = [];
        const consumer = await bus.consume(
          "orphaned",
          async (job) => {
            first.push(job.deliveryCount); // returns without settling
          },
          { ackWaitMs: 60_000 },
        );
        await bus.enqueue("orphaned", encode("x"));
        await waitFor(() => first.length === 1, 1_000, "the first delivery");
        await consumer.stop(); // its wake goes with it
        const next: number[] = [];
        await bus.consume("orphaned", async (job) => {
          next.push(job.deliveryCount);
          await job.ack();
        });
        await clock.advance(59_999);
        expect(next).toEqual([]);
        await clock.advance(1);
        await waitFor(() => next.length === 1, 1_000, "the redelivery to the next consumer");
        expect(next).toEqual([2]);
      } finally {
        await cleanup();
      }
    });

    test("a job reserved when the bus closes is stored and waits for the next start; the closed file is not touched again", async () => {
      const dir = await mkdtemp(join(tmpdir(), "junction-bus-"));
      const path = join(dir, "bus.sqlite");
      try {
        const db = openDatabase(path);
        const bus = new MemoryBus(db, { logger: memoryLogger() });
        await bus.consume("closing", async (job) => {
          await job.ack();
        });
        const enqueued = bus.enqueue("closing", encode("x")); // reserves the free slot
        await bus.close(); // commits the job
        db.close();
        await enqueued;
        for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));

        const reopenedDb = openDatabase(path);
        const reopened = new MemoryBus(reopenedDb, { logger: memoryLogger() });
        const got: string[] = [];
        await reopened.consume("closing", async (job) => {
          got.push(decode(job.data));
          await job.ack();
        });
        await waitFor(() => got.length === 1, 1_000, "the job after the restart");
        expect(got).toEqual(["x"]);
        await reopened.close();
        reopenedDb.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test("a job reserved for a consumer that stops before the commit waits for the next consumer", async () => {
      const { bus, cleanup } = await sqliteBus();
      try {
        const first: string[] = [];
        const consumer = await bus.consume("stopping", async (job) => {
          first.push(decode(job.data));
          await job.ack();
        });
        // The slot is reserved when enqueue is called; the commit comes at the end of the turn.
        const enqueued = bus.enqueue("stopping", encode("x"));
        await consumer.stop();
        await enqueued;
        const next: Array<[string, number]> = [];
        await bus.consume("stopping", async (job) => {
          next.push([decode(job.data), job.deliveryCount]);
          await job.ack();
        });
        await waitFor(() => next.length === 1, 1_000, "the job for the next consumer");
        expect(first).toEqual([]);
        // The handover counted as a delivery, as JetStream counts one to a consumer that went away.
        expect(next).toEqual([["x", 2]]);
      } finally {
        await cleanup();
      }
    });
  });

  test("a closed bus refuses new work", async () => {
    const bus = new MemoryBus(undefined, { logger: memoryLogger() });
    await bus.close();
    expect(bus.enqueue("q", new Uint8Array())).rejects.toThrow("bus is closed");
  });
});
