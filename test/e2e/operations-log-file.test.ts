import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SqliteOperationStore } from "@junction/logs-service/store/sqlite-operation-store";
import { openDatabase } from "@junction/platform";
import type { Operation } from "@junction/platform/operations/operation";
import { startTestJunction } from "../support/embedded-junction.ts";
import { tempDir } from "../support/temp-dir.ts";

const dirs: { remove(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

function countIn(file: string): number {
  const db = new Database(file);
  try {
    return db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM operations").get()?.n ?? 0;
  } finally {
    db.close();
  }
}

describe("the embedded default's operations log in its own file (logs.sqlite)", () => {
  for (const thread of ["true", "false"]) {
    test(`a data dir whose junction.sqlite holds operations: at start they are in logs.sqlite and listed, none left behind (JUNCTION_LOGS_WRITER_THREAD=${thread})`, async () => {
      const dir = tempDir();
      dirs.push(dir);
      const startedAtMs = Date.now() - 60_000;
      const old: Operation[] = Array.from({ length: 30 }, (_, i) => ({
        id: `op_${String(startedAtMs + i).padStart(13, "0")}_legacy${i}`,
        kind: "webhook_delivery",
        status: i === 7 ? "failed" : "success",
        startedAtMs: startedAtMs + i,
        durationMs: 3,
        environmentId: "",
        integration: "cal",
        connection: `c${i}`,
        endUser: "",
        tags: [],
        title: `delivery ${i}`,
        messages: [{ atMs: startedAtMs + i, level: "info", text: `legacyword${i} answered 200` }],
      }));
      const legacy = openDatabase(join(dir.path, "junction.sqlite"));
      await new SqliteOperationStore(legacy).insert(old);
      legacy.close();

      const junction = await startTestJunction({ dataDir: dir.path, env: { JUNCTION_LOGS_WRITER_THREAD: thread } });
      const found = await junction.api("GET", "/logs/operations?q=legacyword7");
      expect(found.status).toBe(200);
      expect(found.body.data.map((o: { title: string; status: string }) => [o.title, o.status])).toEqual([
        ["delivery 7", "failed"],
      ]);
      const listed = await junction.api("GET", "/logs/operations?kind=webhook_delivery&limit=100");
      expect(listed.body.data).toHaveLength(30);
      await junction.close({ keepData: true });

      expect(countIn(join(dir.path, "logs.sqlite"))).toBe(30);
      const main = new Database(join(dir.path, "junction.sqlite"));
      expect(main.query("SELECT name FROM sqlite_master WHERE name LIKE 'operation%'").all()).toEqual([]);
      main.close();
    });
  }

  test("stop writes every operation recorded before it into logs.sqlite, none into junction.sqlite", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const junction = await startTestJunction({ dataDir: dir.path });
    const now = Date.now();
    for (let i = 0; i < 1_200; i++) {
      junction.operations.record({ kind: "sync_run", status: "success", startedAtMs: now + i, title: `run ${i}` });
    }
    await junction.close({ keepData: true });
    expect(countIn(join(dir.path, "logs.sqlite"))).toBe(1_200);
    const main = new Database(join(dir.path, "junction.sqlite"));
    expect(main.query("SELECT name FROM sqlite_master WHERE name = 'operations'").all()).toEqual([]);
    main.close();
  });
});
