import type { Database } from "bun:sqlite";
import { migrate } from "@junction/platform";
import type { Transactor } from "./group-commit.ts";
import type { InsertResult, JobStore, StoredJob } from "./job-store.ts";

// Append-only: never edit a shipped migration, add the next one.
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE bus_jobs (
     -- AUTOINCREMENT so that an id is never reused: a late ack must not remove a newer job.
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     queue TEXT NOT NULL,
     data BLOB NOT NULL,
     msg_id TEXT,
     deliveries INTEGER NOT NULL DEFAULT 0,
     available_at INTEGER NOT NULL,
     enqueued_at INTEGER NOT NULL
   );
   CREATE INDEX bus_jobs_queue_available ON bus_jobs (queue, available_at);
   CREATE TABLE bus_msg_ids (
     queue TEXT NOT NULL,
     msg_id TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     PRIMARY KEY (queue, msg_id)
   );
   CREATE INDEX bus_msg_ids_expires ON bus_msg_ids (expires_at);`,
  // The de-duplication ids keyed by their primary key alone (no rowid table beside it): one B-tree
  // less written per enqueue.
  `CREATE TABLE bus_msg_ids_v2 (
     queue TEXT NOT NULL,
     msg_id TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     PRIMARY KEY (queue, msg_id)
   ) WITHOUT ROWID;
   INSERT INTO bus_msg_ids_v2 SELECT queue, msg_id, expires_at FROM bus_msg_ids;
   DROP TABLE bus_msg_ids;
   ALTER TABLE bus_msg_ids_v2 RENAME TO bus_msg_ids;
   CREATE INDEX bus_msg_ids_expires ON bus_msg_ids (expires_at);`,
];

const SWEEP_EVERY_MS = 10_000;

interface JobRow {
  id: number;
  queue: string;
  data: Uint8Array;
  msg_id: string | null;
  deliveries: number;
}

/**
 * Jobs in a SQLite table, written before `enqueue` resolves, so they survive a restart. A claim is
 * one UPDATE ... RETURNING, atomic even if another connection shares the file. The bus batches its
 * writes through `transactor` (group commit): one transaction per batch, not per job.
 */
export class SqliteJobStore implements JobStore {
  readonly transactor: Transactor;
  private lastSweep = 0;
  /** The new job's id, or null for a duplicate. */
  private readonly insertTx: (
    queue: string,
    data: Uint8Array,
    msgId: string | undefined,
    now: number,
    leaseMs: number | undefined,
  ) => number | null;

  constructor(
    private readonly db: Database,
    private readonly dedupWindowMs: number,
  ) {
    migrate(db, "bus", MIGRATIONS);
    // Remembers the id unless it is remembered and unexpired: one statement, no change for a duplicate.
    const remember = db.query<unknown, [string, string, number, number]>(
      `INSERT INTO bus_msg_ids (queue, msg_id, expires_at) VALUES (?1, ?2, ?3)
       ON CONFLICT (queue, msg_id) DO UPDATE SET expires_at = excluded.expires_at WHERE bus_msg_ids.expires_at <= ?4`,
    );
    const add = db.query(
      "INSERT INTO bus_jobs (queue, data, msg_id, deliveries, available_at, enqueued_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    const addJob = (queue: string, data: Uint8Array, msgId: string | undefined, now: number, leaseMs?: number) => {
      const claimed = leaseMs !== undefined;
      return Number(
        add.run(queue, data, msgId ?? null, claimed ? 1 : 0, claimed ? now + leaseMs : now, now).lastInsertRowid,
      );
    };
    const rememberThenAdd = db.transaction(
      (queue: string, data: Uint8Array, msgId: string, now: number, leaseMs: number | undefined) =>
        remember.run(queue, msgId, now + this.dedupWindowMs, now).changes === 0
          ? null
          : addJob(queue, data, msgId, now, leaseMs),
    );
    // Without a de-duplication id the job is one statement, atomic alone: no savepoint around it (two
    // statements more, and a copy of each page it changes, on every enqueue of the notification path).
    this.insertTx = (queue, data, msgId, now, leaseMs) =>
      msgId === undefined
        ? addJob(queue, data, msgId, now, leaseMs)
        : rememberThenAdd(queue, data, msgId, now, leaseMs);
    this.transactor = {
      atomically: (fn) => db.transaction(fn)(),
      inTransaction: () => db.inTransaction,
    };
  }

  insert(queue: string, data: Uint8Array, msgId: string | undefined, now: number, leaseMs?: number): InsertResult {
    this.sweep(now);
    const id = this.insertTx(queue, data, msgId, now, leaseMs);
    if (id === null) return { duplicate: true };
    if (leaseMs === undefined) return { duplicate: false, id };
    return { duplicate: false, id, claimed: { id, queue, data, msgId, deliveries: 1 } };
  }

  claim(queue: string, now: number, leaseMs: number): StoredJob | undefined {
    // The index (queue, available_at) holds the rowid (id) last, so this order is the index's own:
    // the first entry is read, nothing is sorted. `ORDER BY id` alone sorted every waiting job.
    const row = this.db
      .query<JobRow, [number, string, number]>(
        `UPDATE bus_jobs SET deliveries = deliveries + 1, available_at = ?
         WHERE id = (SELECT id FROM bus_jobs WHERE queue = ? AND available_at <= ? ORDER BY available_at, id LIMIT 1)
         RETURNING id, queue, data, msg_id, deliveries`,
      )
      .get(now + leaseMs, queue, now);
    if (!row) return undefined;
    return { id: row.id, queue: row.queue, data: row.data, msgId: row.msg_id ?? undefined, deliveries: row.deliveries };
  }

  /**
   * Like `claim` for up to `limit` jobs at once: the ones `claim` would take first, in one statement
   * (a consumer with room for several takes them in one write, not one each), returned in id order.
   */
  claimMany(queue: string, now: number, leaseMs: number, limit: number): StoredJob[] {
    return this.db
      .query<JobRow, [number, string, number, number]>(
        `UPDATE bus_jobs SET deliveries = deliveries + 1, available_at = ?
         WHERE id IN (SELECT id FROM bus_jobs WHERE queue = ? AND available_at <= ? ORDER BY available_at, id LIMIT ?)
         RETURNING id, queue, data, msg_id, deliveries`,
      )
      .all(now + leaseMs, queue, now, limit)
      .sort((a, b) => a.id - b.id)
      .map((row) => ({
        id: row.id,
        queue: row.queue,
        data: row.data,
        msgId: row.msg_id ?? undefined,
        deliveries: row.deliveries,
      }));
  }

  nextAvailableAt(queue: string): number | undefined {
    const row = this.db
      .query<{ at: number | null }, [string]>("SELECT MIN(available_at) AS at FROM bus_jobs WHERE queue = ?")
      .get(queue);
    return row?.at ?? undefined;
  }

  release(id: number, deliveries: number, availableAt: number): void {
    this.db
      .query("UPDATE bus_jobs SET available_at = ? WHERE id = ? AND deliveries = ?")
      .run(availableAt, id, deliveries);
  }

  remove(id: number): void {
    this.db.query("DELETE FROM bus_jobs WHERE id = ?").run(id);
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    this.db.query("DELETE FROM bus_msg_ids WHERE expires_at <= ?").run(now);
  }
}
