import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/** The page cache's default bound, MiB (JUNCTION_SQLITE_CACHE_MB). */
export const DEFAULT_SQLITE_CACHE_MB = 16;

export interface DatabaseOptions {
  /** The page cache's bound, MiB: the most this connection keeps of the file's pages in its own memory. */
  cacheMb?: number;
}

/** Opens (creating on first run) a SQLite file in WAL mode, or an in-memory database for ":memory:". */
export function openDatabase(path: string, options: DatabaseOptions = {}): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  // The wait for a lock is set first: switching a new file to WAL takes its write lock, and processes
  // opening one new file together (a distributed start) would otherwise fail on each other's switch.
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  // A checkpoint (copying the WAL's pages into the database file, and two fsyncs) every 10 000 WAL
  // pages (~40 MB) instead of SQLite's 1 000: the pages a busy queue rewrites all the time are
  // copied once per checkpoint however often they were written, so there is much less to copy and
  // sync per commit (measured: ~13 % more notifications forwarded per second, 25 % less time per
  // transaction in a write loop). The price is a longer pause per checkpoint, ~20 ms instead of ~5 on
  // a VM's disk, ten times less often, and a WAL file of up to ~40 MB.
  db.exec("PRAGMA wal_autocheckpoint = 10000");
  // Reads through a memory map: index lookups on large tables (10^6 connections) stay memory accesses
  // instead of read() calls, in pages the kernel may reclaim (file-backed, shared with its cache).
  db.exec("PRAGMA mmap_size = 1073741824");
  // The page cache holds what the map cannot serve: pages written since the last checkpoint (in the WAL)
  // and pages being changed. It is private memory that fills up to its bound and is never given back,
  // so the bound is the process's: at 64 MiB a long mixed load kept ~60 MiB of old pages resident
  // (bench:soak); the hot pages of the queues and indexes fit well within the default.
  const cacheKib = Math.round((options.cacheMb ?? DEFAULT_SQLITE_CACHE_MB) * 1024);
  db.exec(`PRAGMA cache_size = -${cacheKib}`);
  return db;
}

/**
 * Applies `migrations` in order, each once, in a transaction, recorded under `component` so that
 * several services may share one file. Migrations are append-only: never edit a shipped one. Safe when
 * processes open one file at once (gateway processes sharing `gateway.sqlite`): each migration runs
 * under the write lock (IMMEDIATE) after reading again whether another process applied it meanwhile.
 */
export function migrate(db: Database, component: string, migrations: readonly string[]): void {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, applied_at INTEGER NOT NULL, PRIMARY KEY (component, version))",
  );
  const applied = () =>
    db
      .query<{ v: number | null }, [string]>("SELECT MAX(version) AS v FROM schema_migrations WHERE component = ?")
      .get(component)?.v ?? 0;
  for (let i = applied(); i < migrations.length; i++) {
    db.transaction(() => {
      if (applied() > i) return;
      db.exec(migrations[i] as string);
      db.query("INSERT INTO schema_migrations (component, version, applied_at) VALUES (?, ?, ?)").run(
        component,
        i + 1,
        Date.now(),
      );
    }).immediate();
  }
}
