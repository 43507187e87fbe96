import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, MetricsRegistry, memoryLogger } from "@junction/platform";
import { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import { op } from "./operation-store.conformance.ts";
import { waitFor } from "../../../../test/support/wait-for.ts";
import { ThreadedOperationStore } from "./threaded-operation-store.ts";

describe("ThreadedOperationStore: its writer thread", () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "oplog-writer-"));
    file = join(dir, "logs.sqlite");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("a writer that dies is reported once (a warning, a metric) and the next batch goes to a new one", async () => {
    const logger = memoryLogger();
    const metrics = new MetricsRegistry();
    const { store } = await ThreadedOperationStore.open({ file, logger, metrics });
    await store.insert([op()]);
    store.writerThread?.terminate();
    await waitFor("the death to be seen", () => logger.lines.some((l) => l.includes("writer stopped")));
    await store.insert([op(), op()]);
    expect(await store.count()).toBe(3);
    expect(logger.lines.filter((l) => l.includes("writer stopped"))).toHaveLength(1);
    expect(await metrics.render()).toContain("junction_operations_writer_restarts_total 1");
    await store.close();
  });

  test("close lets the writer finish every batch handed over first", async () => {
    const { store } = await ThreadedOperationStore.open({ file, logger: memoryLogger() });
    const inserts = Array.from({ length: 20 }, () => store.insert(Array.from({ length: 50 }, () => op())));
    await store.close();
    await Promise.all(inserts);
    const db = new Database(file);
    expect(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM operations").get()?.n).toBe(1000);
    db.close();
  });

  test("a writer stuck on the file's lock fills the recorder's bounded buffer (drops counted), never a queue; close does not hang", async () => {
    const logger = memoryLogger();
    const { store } = await ThreadedOperationStore.open({ file, logger, closeTimeoutMs: 300 });
    const recorder = new OperationRecorder({ clock: new ManualClock(), maxBuffered: 1_000, maxBatch: 500 });
    recorder.attach((batch) => store.insert(batch));
    // Another connection holds the write lock: the writer's transaction waits on it (busy_timeout).
    const other = new Database(file);
    other.exec("BEGIN IMMEDIATE");
    for (let i = 0; i < 500; i++) recorder.record({ kind: "sync_run", status: "success", startedAtMs: i });
    await waitFor("the batch to be handed over", () => store.pendingWrites === 1);
    for (let i = 0; i < 3_000; i++) recorder.record({ kind: "sync_run", status: "success", startedAtMs: i });
    // One batch with the writer, the buffer at its bound, the rest dropped.
    expect(recorder.droppedTotal).toBe(2_000);
    expect(store.pendingWrites).toBe(1);
    other.exec("COMMIT");
    await recorder.flushed();
    expect(await store.count()).toBe(1_500);

    // Held again past the close's deadline: the close stops the writer and returns.
    other.exec("BEGIN IMMEDIATE");
    const lost = store.insert([op()]);
    const started = Date.now();
    await store.close();
    expect(Date.now() - started).toBeLessThan(3_000);
    await expect(lost).rejects.toThrow("stopped");
    expect(logger.lines.some((l) => l.includes("did not finish in time"))).toBe(true);
    other.exec("ROLLBACK");
    other.close();
  });

  test("a file the writer cannot open fails the open, without hanging", async () => {
    const logger = memoryLogger();
    const opening = ThreadedOperationStore.open({ file: join(dir, "missing", "\0bad"), logger });
    await expect(opening).rejects.toThrow();
  });
});
