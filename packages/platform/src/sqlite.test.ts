import { afterAll, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCommonConfig } from "./common-config.ts";
import { openDatabase } from "./sqlite.ts";

const root = mkdtempSync(join(tmpdir(), "junction-sqlite-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("a database file opens in WAL mode, synced at checkpoints, checkpointing every 10 000 pages", () => {
  const db = openDatabase(join(root, "nested", "data.sqlite"));
  const pragma = (name: string) => Object.values(db.query(`PRAGMA ${name}`).get() as Record<string, unknown>)[0];
  expect(pragma("journal_mode")).toBe("wal");
  expect(pragma("synchronous")).toBe(1); // NORMAL
  expect(pragma("wal_autocheckpoint")).toBe(10000);
  expect(pragma("foreign_keys")).toBe(1);
  db.close();
});

test("the page cache is bounded: 16 MiB by default, JUNCTION_SQLITE_CACHE_MB otherwise", () => {
  const cacheKib = (db: ReturnType<typeof openDatabase>) =>
    -((db.query("PRAGMA cache_size").get() as { cache_size: number }).cache_size as number);
  const byDefault = openDatabase(join(root, "default.sqlite"));
  expect(cacheKib(byDefault)).toBe(16 * 1024);
  byDefault.close();
  const { sqliteCacheMb } = loadCommonConfig({ JUNCTION_SQLITE_CACHE_MB: "4" });
  const set = openDatabase(join(root, "set.sqlite"), { cacheMb: sqliteCacheMb });
  expect(cacheKib(set)).toBe(4 * 1024);
  set.close();
  expect(loadCommonConfig({}).sqliteCacheMb).toBe(16);
  expect(() => loadCommonConfig({ JUNCTION_SQLITE_CACHE_MB: "0" })).toThrow(/JUNCTION_SQLITE_CACHE_MB/);
});

test("writing more than the page cache's bound keeps the connection's memory near the bound", () => {
  // Bun's allocator counts the page cache's pages among its live allocations (the RSS where it cannot say).
  const live = () => {
    const m = (heapStats() as unknown as { mimalloc?: { malloc_normal?: { current: number } } }).mimalloc;
    return m?.malloc_normal?.current ?? process.memoryUsage().rss;
  };
  const db = openDatabase(join(root, "bounded.sqlite"), { cacheMb: 2 });
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)");
  const insert = db.query("INSERT INTO t (v) VALUES (?)");
  const row = new Uint8Array(3000);
  const before = live();
  // 15 MB of new pages, all of them in the WAL (no checkpoint before 10 000 pages): each was in the cache.
  for (let batch = 0; batch < 10; batch++)
    db.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run(row);
    })();
  const grown = (live() - before) / 1048576;
  db.close();
  // Unbounded (the 64 MiB it was), the cache kept ~25 MiB of these pages.
  expect(grown).toBeLessThan(8);
});

test("processes migrating one new file at once apply each migration once, and none fails", async () => {
  const file = join(root, "shared", "migrated.sqlite");
  // A slow first migration keeps the others' reads of the applied version inside its window.
  const script = `
    import { migrate, openDatabase } from ${JSON.stringify(join(import.meta.dir, "sqlite.ts"))};
    const [file, startAt] = process.argv.slice(2);
    const db = openDatabase(file);
    while (Date.now() < Number(startAt)) {}
    migrate(db, "race", [
      "CREATE TABLE t (x INTEGER); INSERT INTO t WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT x FROM c;",
      "CREATE TABLE u (y INTEGER);",
    ]);
  `;
  const scriptFile = join(root, "migrate-race.ts");
  await Bun.write(scriptFile, script);
  // Every process starts migrating at one instant, after all have started and opened the file.
  const startAt = String(Date.now() + 1500);
  const procs = Array.from({ length: 3 }, () =>
    Bun.spawn(["bun", scriptFile, file, startAt], { stdout: "pipe", stderr: "pipe" }),
  );
  const results = await Promise.all(
    procs.map(async (p) => ({ code: await p.exited, stderr: await new Response(p.stderr).text() })),
  );
  expect(results.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
  const db = openDatabase(file);
  expect(db.query("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 100000 });
  expect(db.query("SELECT version FROM schema_migrations WHERE component = 'race' ORDER BY version").all()).toEqual([
    { version: 1 },
    { version: 2 },
  ]);
  db.close();
});
