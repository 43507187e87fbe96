import { openDatabase } from "@junction/platform";
import type { Operation } from "@junction/platform/operations/operation";
const { SqliteOperationStore } = await import(
  process.env.OPLOG_STORE ?? "@junction/logs-service/store/sqlite-operation-store"
);

/**
 * The operations log's write path alone: 10,000 recorded proxy calls (as the gateway records them)
 * through the SQLite store's batch insert, in batches of 500, on a file database in WAL mode as the
 * embedded default opens it. Prints CPU µs per row. `bun bench/support/oplog-insert.ts [rows]`
 */
const rows = Number(process.argv[2] ?? 10_000);
const dir = `/tmp/oplog-bench-${process.pid}`;
const db = openDatabase(`${dir}/logs.sqlite`);
const store = new SqliteOperationStore(db);

function proxyCall(i: number): Operation {
  const status = i % 50 === 0 ? 502 : 200;
  const at = 1_800_000_000_000 + i;
  return {
    id: `op_${at}_${String(i).padStart(8, "0")}`,
    kind: "proxy_call",
    status: status < 400 ? "success" : "failed",
    startedAtMs: at,
    durationMs: 3,
    environmentId: "env_1",
    integration: "calendar",
    connection: `conn-${i % 64}`,
    endUser: "",
    tags: [],
    title: `GET /calendars/primary → ${status}`,
    messages: [
      { atMs: at + 3, level: status < 400 ? "info" : "warn", text: `upstream answered ${status}`, fields: { status } },
    ],
  };
}

const ops = Array.from({ length: rows }, (_, i) => proxyCall(i));
const batch = 500;
// Warm the statements and the page cache on a first batch that is not counted.
await store.insert(Array.from({ length: batch }, (_, i) => proxyCall(rows + i)));
const before = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < rows; i += batch) await store.insert(ops.slice(i, i + batch));
const cpu = process.cpuUsage(before);
const wall = performance.now() - t0;
console.log(
  `${rows} rows: ${((cpu.user + cpu.system) / rows).toFixed(1)} µs CPU/row (user ${(cpu.user / rows).toFixed(1)}, ` +
    `sys ${(cpu.system / rows).toFixed(1)}), ${((wall * 1000) / rows).toFixed(1)} µs wall/row; count ${await store.count()}`,
);
db.close();
await Bun.$`rm -rf ${dir}`;
