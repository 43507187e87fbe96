import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryLogger, openDatabase } from "@junction/platform";
import type { Operation } from "@junction/platform/operations/operation";
import { hasOperationsLog, moveLegacyOperations } from "./legacy-operations.ts";
import { op } from "./operation-store.conformance.ts";
import { SqliteOperationStore } from "./sqlite-operation-store.ts";
import { ThreadedOperationStore } from "./threaded-operation-store.ts";

describe("the embedded default's operations, moved from junction.sqlite into logs.sqlite", () => {
  let dir: string;
  let legacyFile: string;
  let file: string;
  let kept: Operation[];
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "oplog-legacy-"));
    legacyFile = join(dir, "junction.sqlite");
    file = join(dir, "logs.sqlite");
    // The one file as an older embedded process left it: the log beside another service's table.
    const legacy = openDatabase(legacyFile);
    legacy.exec("CREATE TABLE connections (id TEXT PRIMARY KEY); INSERT INTO connections VALUES ('c1')");
    kept = Array.from({ length: 95 }, (_, i) =>
      op({
        title: `delivery ${i}`,
        tags: i % 3 ? [] : ["vip"],
        messages: [{ atMs: i, level: "warn", text: `attempt ${i} answered 503`, fields: { status: 503 } }],
      }),
    );
    kept.push(op({ totals: { count: 40, latencyMinMs: 1, latencyMaxMs: 9, latencySumMs: 120 } }));
    await new SqliteOperationStore(legacy).insert(kept);
    legacy.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** What logs.sqlite holds, through a store of its own, and whether junction.sqlite still has a log. */
  async function after() {
    const db = openDatabase(file);
    const store = new SqliteOperationStore(db);
    const all = await store.list({}, 1_000);
    const found = { count: await store.count(), vip: (await store.list({ tag: "vip" }, 1_000)).length };
    const search = (await store.list({ q: "attempt 94" }, 10)).map((o) => o.title);
    db.close();
    const legacy = new Database(legacyFile);
    const state = {
      legacyLog: hasOperationsLog(legacy),
      legacyMigrations: legacy.query("SELECT 1 FROM schema_migrations WHERE component = 'logs'").all().length,
      otherTable: legacy.query("SELECT id FROM connections").all(),
    };
    legacy.close();
    return { all, ...found, search, ...state };
  }

  test("at start: every operation whole (tags, messages, totals, search) in logs.sqlite, none left in junction.sqlite", async () => {
    const { store, moved } = await ThreadedOperationStore.open({ file, legacyFile, logger: memoryLogger() });
    expect(moved).toBe(96);
    expect(await store.get(String(kept[95]?.id))).toEqual(kept[95] as Operation);
    await store.close();
    const a = await after();
    expect(a.all).toEqual([...kept].reverse());
    expect({ count: a.count, vip: a.vip, search: a.search }).toEqual({ count: 96, vip: 32, search: ["delivery 94"] });
    expect({ log: a.legacyLog, migrations: a.legacyMigrations, other: a.otherTable }).toEqual({
      log: false,
      migrations: 0,
      other: [{ id: "c1" }],
    });
    // The next start finds nothing to move, and keeps what was moved.
    const again = await ThreadedOperationStore.open({ file, legacyFile, logger: memoryLogger() });
    expect(again.moved).toBe(0);
    expect(await again.store.count()).toBe(96);
    await again.store.close();
  });

  for (const crashAt of [40, 96]) {
    test(`a crash after ${crashAt} of 96 copied (${crashAt === 96 ? "before the drop" : "mid-copy"}): the next start loses nothing and keeps nothing twice`, async () => {
      const legacy = openDatabase(legacyFile);
      const to = new SqliteOperationStore(openDatabase(file));
      const crashed = moveLegacyOperations(legacy, to, {
        chunk: 20,
        afterChunk: (copied) => {
          if (copied >= crashAt) throw new Error("killed");
        },
      });
      await expect(crashed).rejects.toThrow("killed");
      legacy.close();
      expect(await to.count()).toBe(crashAt);
      const { store, moved } = await ThreadedOperationStore.open({ file, legacyFile, logger: memoryLogger() });
      expect(moved).toBe(96);
      await store.close();
      const a = await after();
      expect(a.all.map((o) => o.id)).toEqual([...kept].reverse().map((o) => o.id));
      expect({ count: a.count, vip: a.vip, search: a.search, log: a.legacyLog }).toEqual({
        count: 96,
        vip: 32,
        search: ["delivery 94"],
        log: false,
      });
    });
  }
});
