import { Database } from "bun:sqlite";
import { resolve } from "node:path";

/**
 * The query plan of every filter of the operations log's list on the SQLite store, after a few
 * thousand operations and ANALYZE-free statistics as the store runs: each line must name an index.
 *
 *   bun bench/support/oplog-plans.ts [root=.]
 */
const root = resolve(process.argv[2] ?? ".");
const { SqliteOperationStore } = await import(`${root}/services/logs/src/store/sqlite-operation-store.ts`);
const db = new Database(":memory:");
const store = new SqliteOperationStore(db);
const plans: string[] = [];
const query = db.query.bind(db);
db.query = ((sql: string) => {
  if (sql.trimStart().startsWith("SELECT id,")) {
    const statement = query(sql);
    return {
      all: (...args: unknown[]) => {
        const rows = query(`EXPLAIN QUERY PLAN ${sql}`).all(...(args as [])) as { detail: string }[];
        plans.push(rows.map((r) => r.detail).join("; "));
        return statement.all(...(args as []));
      },
    };
  }
  return query(sql);
}) as typeof db.query;
const filters: Record<string, Record<string, unknown>> = {
  none: {},
  kind: { kind: "webhook_delivery" },
  "kind proxy_call": { kind: "proxy_call" },
  status: { status: "failed" },
  integration: { integration: "cal" },
  "integration + connection": { integration: "cal", connection: "c1" },
  connection: { connection: "c1" },
  "end user": { endUser: "u1" },
  tag: { tag: "t" },
  period: { fromMs: 1, toMs: 2 },
  q: { q: "word" },
  "kind + integration + connection": { kind: "webhook_delivery", integration: "cal", connection: "c1" },
  "integration + connection + period": { integration: "cal", connection: "c1", fromMs: 1, toMs: 2 },
};
for (const [name, filter] of Object.entries(filters)) {
  await store.list(filter, 50, { startedAtMs: 5, id: "op_x" });
  console.log(`${name.padEnd(36)} ${plans.pop()}`);
}
