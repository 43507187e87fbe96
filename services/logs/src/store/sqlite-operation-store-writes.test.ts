import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@junction/platform";
import type { Operation } from "@junction/platform/operations/operation";
import type { OperationFilter } from "./operation-store.ts";
import { SqliteOperationStore } from "./sqlite-operation-store.ts";

/** A delivery round as the webhook service records it, for one of `connections` connections. */
function delivery(i: number, connections: number): Operation {
  const at = 1_800_000_000_000 + i;
  return {
    id: `op_${at}_${String(i).padStart(8, "0")}`,
    kind: "webhook_delivery",
    status: "success",
    startedAtMs: at,
    durationMs: 3,
    environmentId: "env_1",
    integration: "cal",
    connection: `alice-${i % connections}`,
    endUser: "",
    tags: [],
    title: `forward message msg_${i}: succeeded`,
    messages: [
      {
        atMs: at + 3,
        level: "info",
        text: "attempt 1 to http://127.0.0.1:4000/hooks?…: answered 200",
        fields: { messageId: `msg_${i}`, endpointId: "ep_1", statusCode: 200, latencyMs: 3 },
      },
    ],
  };
}

/** The plan SQLite makes for the list's query under `filter`. */
async function planOf(filter: OperationFilter): Promise<string> {
  const db = new Database(":memory:");
  const store = new SqliteOperationStore(db);
  const query = db.query.bind(db);
  let plan = "";
  db.query = ((sql: string) => {
    if (!sql.includes("ORDER BY started_at DESC")) return query(sql);
    const list = query(sql);
    return {
      all: (...args: never[]) => {
        const rows = query(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[];
        plan = rows.map((r) => r.detail).join("; ");
        return list.all(...args);
      },
    };
  }) as typeof db.query;
  await store.list(filter, 50, { startedAtMs: 5, id: "op_x" });
  db.close();
  return plan;
}

describe("SqliteOperationStore writes and plans", () => {
  test("every filter reads an index, and an integration's page is read in time order, not sorted whole", async () => {
    const filters: OperationFilter[] = [
      {},
      { kind: "webhook_delivery" },
      { status: "failed" },
      { integration: "cal" },
      { integration: "cal", connection: "c1" },
      { connection: "c1" },
      { endUser: "u1" },
      { tag: "t" },
      { fromMs: 1, toMs: 2 },
      { q: "word" },
      { integration: "cal", connection: "c1", fromMs: 1, toMs: 2 },
    ];
    for (const filter of filters) {
      const plan = await planOf(filter);
      expect(plan).toMatch(/USING (INDEX|INTEGER PRIMARY KEY|PRIMARY KEY)/);
      expect(plan).not.toMatch(/SCAN operations(;|$)/);
    }
    for (const filter of [{ integration: "cal" }, { integration: "cal", connection: "c1" }]) {
      const plan = await planOf(filter);
      expect(plan).toContain("(integration=?)");
      // Only the ties of one start time are sorted (by id): the page stops at its limit.
      expect(plan).not.toContain("TEMP B-TREE FOR ORDER BY");
    }
  });

  test("a log written under the connection-first index keeps its operations when the index is replaced", async () => {
    const db = new Database(":memory:");
    await new SqliteOperationStore(db).insert(Array.from({ length: 20 }, (_, i) => delivery(i, 4)));
    // The schema as it was before the replacing migration.
    db.exec(`DROP INDEX operations_integration_started;
      CREATE INDEX operations_integration ON operations (integration, connection, started_at);
      DELETE FROM schema_migrations WHERE component = 'logs' AND version = 3;`);
    const store = new SqliteOperationStore(db);
    const indexes = db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'operations_int%'");
    expect(indexes.all()).toEqual([{ name: "operations_integration_started" }]);
    expect((await store.list({ integration: "cal", connection: "alice-1" }, 10)).length).toBe(5);
    expect(await store.count()).toBe(20);
    db.close();
  });

  test("operations over 64 connections write under a page per five operations (the indexes append)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "oplog-writes-"));
    try {
      const db = openDatabase(join(dir, "logs.sqlite"));
      const store = new SqliteOperationStore(db);
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.exec("PRAGMA wal_autocheckpoint = 0");
      const total = 10_000;
      for (let i = 0; i < total; i += 500) {
        await store.insert(Array.from({ length: 500 }, (_, k) => delivery(i + k, 64)));
      }
      const frames = (db.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number }).log;
      // Inserted at one place per connection, the integration's index took it to ~0.24 pages per operation.
      expect(frames / total).toBeLessThan(0.21);
      expect(await store.count()).toBe(total);
      expect((await store.list({ integration: "cal", connection: "alice-5" }, 3)).map((o) => o.connection)).toEqual([
        "alice-5",
        "alice-5",
        "alice-5",
      ]);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
