/**
 * What the operations log costs the main thread, its writes on the main thread (SqliteOperationStore on
 * logs.sqlite, as JUNCTION_LOGS_WRITER_THREAD=false) against on a thread of their own (ThreadedOperationStore,
 * the embedded default), in interleaved rounds:
 *   - writes: operations shaped as a notification's two (its receipt, its delivery round) recorded through an
 *     OperationRecorder, 20 per turn of the event loop as under load; CPU µs per operation of the main thread
 *     (process.threadCpuUsage) and of the process (every thread);
 *   - reads: pages of a log of OPLOG_READ_SIZE operations (first page, by connection, failed ones, a search
 *     matching most), from a read connection on the main thread against through the thread; the main
 *     thread's CPU µs per page.
 *
 *   OPLOG_ROUNDS=3 bun bench/support/oplog-thread.ts [operations per round=50000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteOperationStore } from "@junction/logs-service/store/sqlite-operation-store";
import { ThreadedOperationStore } from "@junction/logs-service/store/threaded-operation-store";
import type { OperationFilter, OperationStore } from "@junction/logs-service/store/operation-store";
import { memoryLogger, openDatabase, systemClock } from "@junction/platform";
import { OperationRecorder } from "@junction/platform/operations/operation-recorder";

const perRound = Number(process.argv[2] ?? 50_000);
const rounds = Number(process.env.OPLOG_ROUNDS ?? 3);
const readSize = Number(process.env.OPLOG_READ_SIZE ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), "oplog-thread-"));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const micros = (u: { user: number; system: number }) => u.user + u.system;
let n = 0;

/** Records `count` operations through a recorder into `store`; CPU µs per operation, main thread and process. */
async function write(store: OperationStore, count: number): Promise<{ main: number; all: number }> {
  const recorder = new OperationRecorder({ clock: systemClock });
  recorder.attach((batch) => store.insert(batch));
  const main0 = process.threadCpuUsage();
  const all0 = process.cpuUsage();
  for (let i = 0; i < count; i += 20) {
    for (let j = 0; j < 20; j++) {
      n++;
      const at = Date.now();
      recorder.record({
        kind: n % 2 ? "webhook_delivery" : "notification_received",
        status: "success",
        startedAtMs: at,
        integration: "cal",
        connection: `conn-${n % 64}`,
        title: n % 2 ? "POST https://hooks.example.test/junction → 200" : "calendar notification → matched",
        messages: [
          { atMs: at, level: "info", text: "attempt 1 answered 200 in 3 ms", fields: { attempt: 1, status: 200 } },
        ],
      });
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await recorder.flushed();
  return { main: micros(process.threadCpuUsage(main0)) / count, all: micros(process.cpuUsage(all0)) / count };
}

const direct = new SqliteOperationStore(openDatabase(join(dir, "main-thread.sqlite")));
const { store: threaded } = await ThreadedOperationStore.open({
  file: join(dir, "logs.sqlite"),
  logger: memoryLogger(),
});
const sides: [string, OperationStore][] = [
  ["main thread", direct],
  ["own thread", threaded],
];
for (const [, store] of sides) await write(store, 10_000);
const results = new Map<string, { main: number[]; all: number[] }>();
for (let r = 0; r < rounds; r++) {
  for (const [name, store] of r % 2 ? [...sides].reverse() : sides) {
    const m = await write(store, perRound);
    const kept = results.get(name) ?? { main: [], all: [] };
    kept.main.push(m.main);
    kept.all.push(m.all);
    results.set(name, kept);
  }
}
console.log(`# Operations log: writes, ${perRound} operations a round, ${rounds} rounds (CPU µs per operation)`);
for (const [name, m] of results) {
  const f = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(" ");
  console.log(
    `${name}: main thread ${f(m.main)} (median ${median(m.main).toFixed(2)}); process ${f(m.all)} (median ${median(m.all).toFixed(2)})`,
  );
}

// Reads: a log of readSize operations, read by a connection on this thread and through the log's thread.
const readFile = join(dir, "read.sqlite");
const filler = new SqliteOperationStore(openDatabase(readFile));
for (let b = 0; b < readSize / 500; b++) {
  const t0 = 1_700_000_000_000 + b * 500;
  await filler.insert(
    Array.from({ length: 500 }, (_, i) => ({
      id: `op_${String(t0 + i).padStart(13, "0")}_${b}_${i}`,
      kind: i % 2 ? "webhook_delivery" : "notification_received",
      status: (b * 500 + i) % 50 ? "success" : "failed",
      startedAtMs: t0 + i,
      durationMs: 3,
      environmentId: "env",
      integration: "cal",
      connection: `conn-${(b * 500 + i) % 1000}`,
      endUser: "",
      tags: [],
      title: `delivery ${b * 500 + i} → 200`,
      messages: [{ atMs: t0 + i, level: "info", text: "attempt 1 answered 200 in 3 ms" }],
    })),
  );
}
const reader = new SqliteOperationStore(openDatabase(readFile, { cacheMb: 2 }));
const { store: viaThread } = await ThreadedOperationStore.open({ file: readFile, logger: memoryLogger() });
const pages: [string, OperationFilter, number][] = [
  ["first page", {}, 200],
  ["by connection", { integration: "cal", connection: "conn-7" }, 50],
  ["failed", { status: "failed" }, 50],
  ["search matching most", { q: "delivery" }, 5],
];
console.log(`\n# Reads: pages of 51 from a log of ${readSize} (main thread's CPU µs per page, ${rounds} rounds)`);
for (const [name, filter, times] of pages) {
  const line: string[] = [];
  for (const [side, store] of [
    ["main thread", reader],
    ["own thread", viaThread],
  ] as const) {
    const each: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const c0 = process.threadCpuUsage();
      for (let i = 0; i < times; i++) await store.list(filter, 51);
      each.push(micros(process.threadCpuUsage(c0)) / times);
    }
    line.push(`${side} ${median(each).toFixed(0)}`);
  }
  console.log(`${name}: ${line.join(", ")}`);
}
await threaded.close();
await viaThread.close();
rmSync(dir, { recursive: true, force: true });
