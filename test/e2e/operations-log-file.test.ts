import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SqliteOperationStore } from "@junction/logs-service/store/sqlite-operation-store";
import { openDatabase } from "@junction/platform";
import { freePort } from "@junction/platform/testing/free-port";
import type { Operation } from "@junction/platform/operations/operation";
import { startTestJunction, TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { startJunctionProcess } from "../support/junction-process.ts";
import { waitFor } from "../support/wait-for.ts";
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

  test("SIGTERM to `junction start` writes the operations recorded just before it into logs.sqlite", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const free = await freePort();
    const junction = startJunctionProcess("embedded", ["start"], {
      JUNCTION_DATA_DIR: dir.path,
      JUNCTION_SECRET_KEY: TEST_SECRET_KEY,
      JUNCTION_HOST: "127.0.0.1",
      PORT: String(free),
    });
    await waitFor("Junction to listen", () => junction.output().includes("Junction is listening on"), 30_000);
    // Each call names an integration that does not exist: refused, and recorded as a failed proxy call.
    const calls = Array.from({ length: 40 }, (_, i) =>
      fetch(`http://127.0.0.1:${free}/proxy/x${i}`, {
        headers: { authorization: `Bearer ${TEST_SECRET_KEY}`, "provider-config-key": "nope", "connection-id": "c" },
      }).then((r) => r.status),
    );
    expect(new Set(await Promise.all(calls))).toEqual(new Set([404]));
    expect(await junction.stop("SIGTERM")).toBe(0);
    expect(countIn(join(dir.path, "logs.sqlite"))).toBe(40);
  }, 45_000);
});
