import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { rm } from "node:fs/promises";
import { memoryLogger } from "@junction/platform";
import type { Job } from "./bus.ts";
import { busConformance } from "./bus.conformance.ts";
import { NatsBus, WORK_STREAM } from "./nats-bus.ts";
import { type NatsServer, startNatsServer } from "../testing/nats-server.ts";
import { waitFor } from "../testing/wait-for.ts";

let server: NatsServer;

beforeAll(async () => {
  server = await startNatsServer();
});

afterAll(async () => {
  await server?.stop();
});

const connect = (url = server.url) => NatsBus.connect({ servers: url, name: "bus-test", logger: memoryLogger() });

busConformance("NATS", async () => {
  const buses: NatsBus[] = [];
  const open = async () => {
    const bus = await connect();
    buses.push(bus);
    return bus;
  };
  return {
    bus: await open(),
    reopen: open,
    cleanup: async () => {
      await Promise.all(buses.map((b) => b.close()));
    },
  };
});

describe("NatsBus", () => {
  test("keeps jobs in one file-backed work-queue stream with the configured duplicate window", async () => {
    const bus = await NatsBus.connect({ servers: server.url, duplicateWindowMs: 90_000, logger: memoryLogger() });
    try {
      const info = await (await jetstreamManager(bus.connection)).streams.info(WORK_STREAM);
      expect(info.config.retention).toBe(RetentionPolicy.Workqueue);
      expect(info.config.storage).toBe(StorageType.File);
      expect(info.config.duplicate_window).toBe(90_000 * 1_000_000);
    } finally {
      await bus.close();
    }
  });

  test("processes starting together on a fresh server all open: the work stream's creation race is not a failure", async () => {
    const fresh = await startNatsServer();
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const buses = await Promise.all(
          Array.from({ length: 8 }, () => NatsBus.connect({ servers: fresh.url, logger: memoryLogger() })),
        );
        const jsm = await jetstreamManager((buses[0] as NatsBus).connection);
        expect((await jsm.streams.info(WORK_STREAM)).config.name).toBe(WORK_STREAM);
        // Gone again, so that the next eight race to create it.
        await jsm.streams.delete(WORK_STREAM);
        await Promise.all(buses.map((b) => b.close()));
      }
    } finally {
      await fresh.stop();
    }
  });

  test("processes consuming one queue share its jobs", async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    try {
      const queue = `share-processes-${crypto.randomUUID().slice(0, 8)}`;
      const seen: [string[], string[]] = [[], []];
      for (const [i, bus] of [a, b].entries()) {
        await bus.consume(queue, async (job) => {
          seen[i as 0 | 1].push(new TextDecoder().decode(job.data));
          await job.ack();
        });
      }
      for (let i = 0; i < 40; i++) await a.enqueue(queue, new TextEncoder().encode(`job-${i}`));

      await waitFor(() => seen[0].length + seen[1].length >= 40, 10_000, "40 jobs");
      expect(new Set([...seen[0], ...seen[1]]).size).toBe(40);
      expect(seen[0].length + seen[1].length).toBe(40);
      expect(seen[0].length).toBeGreaterThan(0);
      expect(seen[1].length).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test("jobs and running consumers survive a crash and restart of the server", async () => {
    const own = await startNatsServer();
    let restarted: NatsServer | undefined;
    const bus = await connect(own.url);
    try {
      const running = `crash-running-${crypto.randomUUID().slice(0, 8)}`;
      const stored = `crash-stored-${crypto.randomUUID().slice(0, 8)}`;
      const got: string[] = [];
      const handler = async (job: Job) => {
        got.push(new TextDecoder().decode(job.data));
        await job.ack();
      };
      await bus.consume(running, handler);
      await bus.enqueue(stored, new TextEncoder().encode("stored before the crash"));
      const reconnected = nextStatus(bus, "reconnect");

      own.kill();
      await own.exited;
      restarted = await startNatsServer({ port: own.port, storeDir: own.storeDir });
      // Requests sent while the client is still disconnected are lost by the client: wait for it.
      await reconnected;

      await bus.enqueue(running, new TextEncoder().encode("after the restart"));
      await bus.consume(stored, handler);

      await waitFor(() => got.length === 2, 10_000, "both jobs");
      expect(got.sort()).toEqual(["after the restart", "stored before the crash"]);
    } finally {
      await bus.close();
      await restarted?.stop();
      await rm(own.storeDir, { recursive: true, force: true });
    }
  }, 20_000);
});

/** Resolves on the connection's next status event of `type` (start it before causing the event). */
function nextStatus(bus: NatsBus, type: string): Promise<void> {
  const statuses = bus.connection.status()[Symbol.asyncIterator]();
  return (async () => {
    for (;;) {
      const next = await statuses.next();
      if (next.done) throw new Error(`connection closed before "${type}"`);
      if (next.value.type === type) return;
    }
  })();
}
