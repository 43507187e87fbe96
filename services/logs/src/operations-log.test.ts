import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { ManualClock, memoryLogger } from "@junction/platform";
import { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import { logsConfigSchema } from "./config.ts";
import { OperationsLog } from "./operations-log.ts";
import { SqliteOperationStore } from "./store/sqlite-operation-store.ts";

const HOUR = 3_600_000;

function setUp(settings: Record<string, number>) {
  const clock = new ManualClock();
  const store = new SqliteOperationStore(new Database(":memory:"));
  const log = new OperationsLog(store, logsConfigSchema.parse(settings), clock, memoryLogger());
  return { clock, store, log };
}

describe("OperationsLog retention", () => {
  test("a flood (a million an hour, scaled down) stays within the count and the recorder's memory bound", async () => {
    const { clock, store, log } = setUp({ maxOperations: 200 });
    await log.start();
    // The recorder holds at most 1 000: a burst past it is dropped and counted, never queued.
    const recorder = new OperationRecorder({ clock, maxBuffered: 1_000, maxBatch: 250 });
    let largest = 0;
    recorder.attach(async (batch) => {
      await log.ingest(batch);
      largest = Math.max(largest, await store.count());
    });
    // 20 000 operations in 72 ms of the clock: a million an hour is ~20 000 in 72 s; the bound scales with it.
    for (let burst = 0; burst < 20; burst++) {
      for (let i = 0; i < 1_000; i++) {
        recorder.record({
          kind: "proxy_call",
          status: "success",
          startedAtMs: clock.now(),
          title: `call ${burst}-${i}`,
        });
      }
      await recorder.flushed();
      await clock.advance(3);
    }
    expect(recorder.droppedTotal).toBe(0);
    expect(largest).toBeLessThanOrEqual(200);
    expect(await store.count()).toBe(200);
    const [newest] = await store.list({}, 1);
    expect(newest?.title).toBe("call 19-999");

    for (let i = 0; i < 1_500; i++)
      recorder.record({ kind: "proxy_call", status: "success", startedAtMs: clock.now() });
    expect(recorder.droppedTotal).toBe(500);
    await recorder.flushed();
    expect(await store.count()).toBe(200);
    log.stop();
  });

  test("operations older than the retention go on the schedule, on the injected clock", async () => {
    const { clock, store, log } = setUp({ retentionHours: 1, pruneIntervalMs: 60_000 });
    await log.ingest([
      {
        id: "op_old",
        kind: "sync_run",
        status: "failed",
        startedAtMs: clock.now(),
        durationMs: 1,
        environmentId: "",
        integration: "",
        connection: "",
        endUser: "",
        tags: [],
        title: "old",
        messages: [],
      },
    ]);
    await log.start();
    await clock.advance(HOUR - 60_000);
    expect(await store.count()).toBe(1);
    await clock.advance(2 * 60_000);
    await log.idle();
    expect(await store.count()).toBe(0);
    log.stop();
  });
});

describe("OperationsLog, the recorder's sink", () => {
  test("a store without a text path gets the recorder's objects; text handed to it is parsed, and counts for retention", async () => {
    const { clock, store, log } = setUp({ maxOperations: 100 });
    await log.start();
    expect(typeof log.sink()).toBe("function");
    const recorder = new OperationRecorder({ clock });
    recorder.attach(log.sink());
    for (let i = 0; i < 60; i++)
      recorder.record({ kind: "sync_run", status: "success", startedAtMs: clock.now() + i, title: `run ${i}` });
    await recorder.flushed();
    const encoded = new OperationRecorder({ clock });
    encoded.attach({ encoded: (json, count) => log.ingestEncoded(json, count) });
    for (let i = 60; i < 101; i++)
      encoded.record({ kind: "sync_run", status: "failed", startedAtMs: clock.now() + i, title: `run ${i}` });
    await encoded.flushed();
    // 101 in, the bound is 100: the oldest went, as it does for objects.
    expect(await store.count()).toBe(100);
    expect((await store.list({}, 2)).map((o) => o.title)).toEqual(["run 100", "run 99"]);
    expect((await store.list({ status: "success" }, 100)).map((o) => o.title).at(-1)).toBe("run 1");
    log.stop();
  });

  test("a store that takes text gets the recorder's JSON as it is", async () => {
    const clock = new ManualClock();
    const texts: string[] = [];
    const inner = new SqliteOperationStore(new Database(":memory:"));
    const store = Object.assign(Object.create(inner) as SqliteOperationStore, {
      insertEncoded: async (json: string) => {
        texts.push(json);
        await inner.insert(JSON.parse(json));
      },
    });
    const log = new OperationsLog(store, logsConfigSchema.parse({}), clock, memoryLogger());
    await log.start();
    const recorder = new OperationRecorder({ clock });
    recorder.attach(log.sink());
    recorder.record({ kind: "action_run", status: "success", startedAtMs: 5, title: "send" });
    await recorder.flushed();
    expect(texts).toHaveLength(1);
    expect(JSON.parse(texts[0] ?? "[]")[0]).toMatchObject({ kind: "action_run", title: "send" });
    expect((await inner.list({}, 10)).map((o) => o.title)).toEqual(["send"]);
    log.stop();
  });
});
