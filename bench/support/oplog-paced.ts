/**
 * The operations log's cost per delivery round at a notification's pace, by thread: webhook_delivery operations
 * built by the webhook service's own `recordDeliveryRound`, through an OperationRecorder, into the embedded
 * default's store (ThreadedOperationStore on a temp `logs.sqlite`), 16 every PACE_MS (4 ms: ~4,000 a second,
 * the loop's rate), so the recorder's batches leave every 100 ms as under load and the writer thread idles
 * between them. Each round prints the process's CPU µs per operation, each thread's (by name, from /proc, 10 ms
 * ticks) and each thread's page faults per operation.
 *   bun bench/support/oplog-paced.ts [checkout root=.] [operations per round=8000] [rounds=3]
 * OPLOG_SINK=none: a sink that keeps nothing (the recorder's own part); OPLOG_SINK=main: the store on this
 * thread (JUNCTION_LOGS_WRITER_THREAD=false). OPLOG_FLUSH_MS: the recorder's longest wait before a batch leaves
 * (default 100, the product's). Allocator settings come from the environment
 * (e.g. MIMALLOC_PURGE_DELAY=1000: freed memory returned to the system after 1 s unused instead of 10 ms).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { threadMillis } from "./processes.ts";

const root = resolve(process.argv[2] ?? ".");
const perRound = Number(process.argv[3] ?? 8000);
const rounds = Number(process.argv[4] ?? 3);
const paceMs = Number(process.env.PACE_MS ?? 4);
const at = (file: string) => import(join(root, file));
const { OperationRecorder } = await at("packages/platform/src/operations/operation-recorder.ts");
const { systemClock } = await at("packages/platform/src/clock.ts");
const { memoryLogger, openDatabase } = await at("packages/platform/src/index.ts");
const { ThreadedOperationStore } = await at("services/logs/src/store/threaded-operation-store.ts");
const { SqliteOperationStore } = await at("services/logs/src/store/sqlite-operation-store.ts");
const { recordDeliveryRound } = await at("services/webhook/src/delivery/delivery-operation.ts");

/** Minor page faults so far per thread name (/proc/<pid>/task/<tid>/stat, field 10). */
function faults(): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const minor = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[7]);
      byName.set(name, (byName.get(name) ?? 0) + minor);
    } catch {
      // The thread ended.
    }
  }
  return byName;
}

const dir = mkdtempSync(join(tmpdir(), "oplog-paced-"));
const sink = process.env.OPLOG_SINK ?? "thread";
const store =
  sink === "main"
    ? new SqliteOperationStore(openDatabase(join(dir, "logs.sqlite")))
    : sink === "none"
      ? undefined
      : (await ThreadedOperationStore.open({ file: join(dir, "logs.sqlite"), logger: memoryLogger() })).store;
const recorder = new OperationRecorder({ clock: systemClock, flushDelayMs: Number(process.env.OPLOG_FLUSH_MS ?? 100) });
// The embedded default's sink: the batch as the recorder's JSON where the store takes text (the writer thread).
recorder.attach(
  store?.insertEncoded
    ? { encoded: (json: string) => store.insertEncoded(json) }
    : store
      ? (batch: unknown[]) => store.insert(batch)
      : async () => {},
);

let n = 0;
/** One delivery round, shaped as the loop's: one attempt answered 200, the message of a notification. */
function deliver(): void {
  n++;
  const now = Date.now();
  const id = `msg_01KB${String(n).padStart(22, "0")}`;
  const message = {
    id,
    environmentId: "env_01KB0000000000000000",
    type: "forward",
    providerConfigKey: "cal",
    connectionId: `user${n % 100}`,
    notificationId: `ntf_01KB${String(n * 7919).padStart(22, "0")}`,
  };
  const attempt = { endpointId: "whe_01KB0000000000", url: "http://127.0.0.1:9/hooks", statusCode: 200 };
  const attempts = [{ ...attempt, messageId: id, latencyMs: 1, error: null, at: now, number: 1 }];
  const outcome = { status: "succeeded", nextAttemptAt: null, lastError: null, updatedAt: now };
  recordDeliveryRound({ operations: recorder }, message, attempts, outcome, now);
}

async function round(count: number): Promise<string> {
  const ticks = threadMillis(process.pid);
  const faulted = faults();
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i += 16) {
    for (let j = 0; j < 16; j++) deliver();
    await Bun.sleep(paceMs);
  }
  await recorder.flushed();
  const used = process.cpuUsage(cpu);
  const per = (x: number) => (x / count).toFixed(1);
  const threads = [...threadMillis(process.pid)]
    .map(([name, ms]) => [name, (ms - (ticks.get(name) ?? 0)) * 1000] as const)
    .filter(([, us]) => us / count >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => `${name} ${per(us)}`);
  const faultsPer = [...faults()]
    .map(([name, k]) => [name, (k - (faulted.get(name) ?? 0)) / count] as const)
    .filter(([, f]) => f >= 0.01)
    .map(([name, f]) => `${name} ${f.toFixed(2)}`);
  return `${per(used.user + used.system)} µs CPU per operation (${threads.join(", ")}); page faults per operation: ${faultsPer.join(", ")}`;
}

await round(4000);
for (let r = 0; r < rounds; r++) console.log(`round ${r + 1}: ${await round(perRound)}`);
await store?.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
