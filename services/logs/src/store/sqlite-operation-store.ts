import type { Database } from "bun:sqlite";
// The platform's SQLite module alone, not its index: the log's writer thread loads this file and little else.
import { migrate } from "@junction/platform/sqlite";
import type { Operation } from "@junction/platform/operations/operation";
import {
  type OperationFilter,
  type OperationPosition,
  type OperationStore,
  type RetentionBounds,
  searchWords,
} from "./operation-store.ts";

// Every index is a write per operation, and proxy calls are most of them: an index leaves them out
// where a scan along the start time finds them anyway (kind: they are most rows; status: few values),
// a connection is looked up under its integration, and an end user's index leaves out the operations
// without one. The full-text index keeps no copy of the text (contentless) and no word positions
// (searches are words and prefixes, never phrases): two writes an operation fewer than plain FTS5.
// A word is what searchWords reads as one, "_" included: without positions, a search word the
// tokenizer split in two would be a phrase, which such an index cannot answer.
export const LOGS_MIGRATIONS = [
  `CREATE TABLE operations (
     seq INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     kind TEXT NOT NULL,
     status TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     duration_ms INTEGER NOT NULL,
     environment_id TEXT NOT NULL,
     integration TEXT NOT NULL,
     connection TEXT NOT NULL,
     end_user TEXT NOT NULL,
     tags TEXT NOT NULL,
     title TEXT NOT NULL,
     messages TEXT NOT NULL
   );
   CREATE INDEX operations_started ON operations (started_at, id);
   CREATE INDEX operations_kind ON operations (kind, started_at) WHERE kind != 'proxy_call';
   CREATE INDEX operations_integration ON operations (integration, connection, started_at);
   CREATE INDEX operations_end_user ON operations (end_user, started_at) WHERE end_user != '';
   CREATE TABLE operation_tags (seq INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (tag, seq)) WITHOUT ROWID;
   CREATE INDEX operation_tags_seq ON operation_tags (seq);
   CREATE VIRTUAL TABLE operations_fts USING fts5(
     body, tokenize = "unicode61 tokenchars '_'", content = '', contentless_delete = 1, detail = none
   );`,
  // Many calls as one operation (a minute's successful proxy calls of one key): NULL for one call.
  `ALTER TABLE operations ADD COLUMN call_count INTEGER;
   ALTER TABLE operations ADD COLUMN latency_min_ms REAL;
   ALTER TABLE operations ADD COLUMN latency_max_ms REAL;
   ALTER TABLE operations ADD COLUMN latency_sum_ms REAL;`,
  // The integration's index in time order: its entries are appended at one place per integration, where
  // (integration, connection, started_at) inserted at one place per connection, each a page of its own
  // to write in a batch (about twice the pages written per operation over 64 connections). A connection
  // is found under its integration by reading this index newest first, without reading the rows.
  `DROP INDEX operations_integration;
   CREATE INDEX operations_integration_started ON operations (integration, started_at, connection);`,
];

export interface OperationRow {
  id: string;
  kind: string;
  status: string;
  started_at: number;
  duration_ms: number;
  environment_id: string;
  integration: string;
  connection: string;
  end_user: string;
  tags: string;
  title: string;
  messages: string;
  call_count: number | null;
  latency_min_ms: number | null;
  latency_max_ms: number | null;
  latency_sum_ms: number | null;
}

export const COLUMNS =
  "id, kind, status, started_at, duration_ms, environment_id, integration, connection, end_user, tags, title, messages, " +
  "call_count, latency_min_ms, latency_max_ms, latency_sum_ms";

export function fromRow(r: OperationRow): Operation {
  const op: Operation = {
    id: r.id,
    kind: r.kind as Operation["kind"],
    status: r.status as Operation["status"],
    startedAtMs: r.started_at,
    durationMs: r.duration_ms,
    environmentId: r.environment_id,
    integration: r.integration,
    connection: r.connection,
    endUser: r.end_user,
    tags: JSON.parse(r.tags) as string[],
    title: r.title,
    messages: JSON.parse(r.messages) as Operation["messages"],
  };
  if (r.call_count !== null) {
    op.totals = {
      count: r.call_count,
      latencyMinMs: r.latency_min_ms ?? 0,
      latencyMaxMs: r.latency_max_ms ?? 0,
      latencySumMs: r.latency_sum_ms ?? 0,
    };
  }
  return op;
}

/** What full-text search reads of an operation: its title and its messages' text. */
export function searchText(op: Operation): string {
  return [op.title, ...op.messages.map((m) => m.text)].join("\n");
}

/** The operations log in SQLite: one row per operation, a tag table, an FTS5 index of the messages. */
export class SqliteOperationStore implements OperationStore {
  private readonly insertOne;
  private readonly insertTag;
  private readonly insertText;

  constructor(private readonly db: Database) {
    migrate(db, "logs", LOGS_MIGRATIONS);
    // Not RETURNING: in bun:sqlite it costs ~40 µs a row more than reading lastInsertRowid after run().
    this.insertOne = db.query<never, (string | number | null)[]>(
      `INSERT INTO operations (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    );
    this.insertTag = db.query("INSERT OR IGNORE INTO operation_tags (seq, tag) VALUES (?, ?)");
    this.insertText = db.query("INSERT INTO operations_fts (rowid, body) VALUES (?, ?)");
  }

  async insert(batch: Operation[]): Promise<void> {
    this.db.transaction(() => {
      for (const op of batch) {
        const inserted = this.insertOne.run(
          op.id,
          op.kind,
          op.status,
          op.startedAtMs,
          Math.round(op.durationMs),
          op.environmentId,
          op.integration,
          op.connection,
          op.endUser,
          JSON.stringify(op.tags),
          op.title,
          JSON.stringify(op.messages),
          op.totals?.count ?? null,
          op.totals?.latencyMinMs ?? null,
          op.totals?.latencyMaxMs ?? null,
          op.totals?.latencySumMs ?? null,
        );
        if (inserted.changes === 0) continue;
        const seq = Number(inserted.lastInsertRowid);
        for (const tag of op.tags) this.insertTag.run(seq, tag);
        this.insertText.run(seq, searchText(op));
      }
    })();
  }

  async list(filter: OperationFilter, limit: number, after?: OperationPosition): Promise<Operation[]> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    const eq = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      where.push(`${column} = ?`);
      args.push(value);
    };
    // The literal terms let SQLite use the partial indexes (it cannot prove a bound value is not the excluded one).
    if (filter.kind !== undefined && filter.kind !== "proxy_call") where.push("kind != 'proxy_call'");
    eq("kind", filter.kind);
    eq("status", filter.status);
    eq("integration", filter.integration);
    eq("connection", filter.connection);
    if (filter.endUser !== undefined) where.push("end_user != ''");
    eq("end_user", filter.endUser);
    if (filter.tag !== undefined) {
      where.push("seq IN (SELECT seq FROM operation_tags WHERE tag = ?)");
      args.push(filter.tag);
    }
    if (filter.fromMs !== undefined) {
      where.push("started_at >= ?");
      args.push(filter.fromMs);
    }
    if (filter.toMs !== undefined) {
      where.push("started_at < ?");
      args.push(filter.toMs);
    }
    const words = filter.q === undefined ? [] : searchWords(filter.q);
    if (words.length > 0) {
      where.push("seq IN (SELECT rowid FROM operations_fts WHERE operations_fts MATCH ?)");
      args.push(words.map((w) => `"${w}"*`).join(" "));
    }
    if (after) {
      where.push("(started_at < ? OR (started_at = ? AND id < ?))");
      args.push(after.startedAtMs, after.startedAtMs, after.id);
    }
    const sql = `SELECT ${COLUMNS} FROM operations ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY started_at DESC, id DESC LIMIT ?`;
    return this.db
      .query<OperationRow, (string | number)[]>(sql)
      .all(...args, limit)
      .map(fromRow);
  }

  async get(id: string): Promise<Operation | undefined> {
    const row = this.db.query<OperationRow, [string]>(`SELECT ${COLUMNS} FROM operations WHERE id = ?`).get(id);
    return row ? fromRow(row) : undefined;
  }

  async prune(bounds: RetentionBounds, nowMs: number): Promise<number> {
    return this.db.transaction(() => {
      const old = this.db
        .query<{ seq: number | null }, [number]>("SELECT MAX(seq) AS seq FROM operations WHERE started_at < ?")
        .get(nowMs - bounds.maxAgeMs)?.seq;
      // Past the count, the oldest by arrival go: seq follows arrival, and its index is the table itself.
      const over = this.db
        .query<{ seq: number }, [number]>("SELECT seq FROM operations ORDER BY seq DESC LIMIT 1 OFFSET ?")
        .get(bounds.maxCount)?.seq;
      let removed = 0;
      if (old != null) removed += this.removeWhere("started_at < ?", nowMs - bounds.maxAgeMs);
      if (over !== undefined) removed += this.removeWhere("seq <= ?", over);
      return removed;
    })();
  }

  private removeWhere(condition: string, value: number): number {
    const seqs = `SELECT seq FROM operations WHERE ${condition}`;
    this.db.query(`DELETE FROM operations_fts WHERE rowid IN (${seqs})`).run(value);
    this.db.query(`DELETE FROM operation_tags WHERE seq IN (${seqs})`).run(value);
    return this.db.query(`DELETE FROM operations WHERE ${condition}`).run(value).changes;
  }

  async count(): Promise<number> {
    return this.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM operations").get()?.n ?? 0;
  }

  async close(): Promise<void> {}
}
