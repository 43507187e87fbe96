import type { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { migrate, openDatabase } from "@junction/platform";
import { type ExistingRecord, type PartitionState, planSave, type SavePlan, uniqueById } from "./plan-writes.ts";
import type {
  Checkpoint,
  CheckpointKey,
  ConnectionScope,
  ListQuery,
  ModelSummary,
  PreparedRecord,
  RecordScope,
  RecordStore,
  SaveOptions,
  StoredRecord,
  UpdateRecord,
  WriteCounts,
} from "./record-store.ts";
import { SqliteRecordRetention } from "./sqlite-record-retention.ts";
import { type PartitionRow, RECORD_MIGRATIONS, type RecordRow } from "./sqlite-record-schema.ts";

const SCOPE_WHERE =
  "environment_id = ? AND provider_config_key = ? AND connection_id = ? AND model = ? AND variant = ?";
const COLUMNS = "id, seq, data, hash, action, first_seen_at, last_modified_at, deleted_at, pruned_at, seen_mark";
/** Records marked deleted per transaction at the end of a deletion-tracking phase. */
const DELETE_CHUNK = 5_000;

const scopeArgs = (s: RecordScope) => [s.environmentId, s.providerConfigKey, s.connectionId, s.model, s.variant];

/** The records store on SQLite (the embedded default): one transaction per batch. */
export class SqliteRecordStore implements RecordStore {
  private ownsDatabase = false;
  readonly retention: SqliteRecordRetention;

  constructor(private readonly db: Database) {
    migrate(db, "records", RECORD_MIGRATIONS);
    this.retention = new SqliteRecordRetention(db);
  }

  static open(path: string): SqliteRecordStore {
    const store = new SqliteRecordStore(openDatabase(path));
    store.ownsDatabase = true;
    return store;
  }

  async save(scope: RecordScope, records: PreparedRecord[], options: SaveOptions): Promise<WriteCounts> {
    return this.db.transaction(() => this.saveNow(scope, records, options))();
  }

  async update(scope: RecordScope, ids: string[], build: UpdateRecord, options: SaveOptions): Promise<WriteCounts> {
    return this.db.transaction(() => {
      const pid = this.partitionRow(scope)?.pid;
      const current = new Map(pid === undefined ? [] : this.rowsByIds(pid, ids).map((r) => [r.id, r.data ?? "{}"]));
      const built: PreparedRecord[] = [];
      for (const id of new Set(ids)) {
        const next = build(id, current.get(id) ?? null);
        if (next) built.push(next);
      }
      return this.saveNow(scope, built, options);
    })();
  }

  async delete(scope: RecordScope, ids: string[], now: number): Promise<WriteCounts> {
    return this.db.transaction(() => {
      const counts: WriteCounts = { added: 0, updated: 0, deleted: 0, unchanged: 0 };
      const partition = this.partitionRow(scope);
      if (!partition) return counts;
      const live = this.rowsByIds(partition.pid, ids)
        .filter((r) => r.action !== "DELETED")
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      const at = Math.max(now, partition.last_modified_at);
      let seq = partition.next_seq;
      const mark = this.db.query(
        "UPDATE records SET action = 'DELETED', deleted_at = ?, last_modified_at = ?, seq = ? WHERE pid = ? AND id = ?",
      );
      for (const row of live) mark.run(at, at, seq++, partition.pid, row.id);
      counts.deleted = live.length;
      this.advance(partition.pid, seq, live.length ? at : partition.last_modified_at, 0);
      return counts;
    })();
  }

  async getByIds(scope: RecordScope, ids: string[]): Promise<StoredRecord[]> {
    const pid = this.partitionRow(scope)?.pid;
    return pid === undefined ? [] : this.rowsByIds(pid, ids).map(toStored);
  }

  async list(scope: RecordScope, query: ListQuery): Promise<{ records: StoredRecord[]; hasMore: boolean }> {
    const pid = this.partitionRow(scope)?.pid;
    if (pid === undefined) return { records: [], hasMore: false };
    const where = ["pid = ?", "seq > ?"];
    const args: (string | number)[] = [pid, query.afterSeq ?? 0];
    if (query.modifiedAfter !== null) {
      where.push("last_modified_at >= ?");
      args.push(query.modifiedAfter);
    }
    if (query.actions) {
      where.push(`action IN (${query.actions.map(() => "?").join(", ")})`);
      args.push(...query.actions);
    }
    if (query.ids) {
      where.push("id IN (SELECT value FROM json_each(?))");
      args.push(JSON.stringify(query.ids));
    }
    args.push(query.limit + 1);
    const rows = this.db
      .query<RecordRow, (string | number)[]>(
        `SELECT ${COLUMNS} FROM records WHERE ${where.join(" AND ")} ORDER BY seq LIMIT ?`,
      )
      .all(...args);
    const hasMore = rows.length > query.limit;
    if (hasMore) rows.pop();
    return { records: rows.map(toStored), hasMore };
  }

  async prune(scope: RecordScope, untilSeq: number, limit: number, now: number) {
    return this.db.transaction(() => {
      const pid = this.partitionRow(scope)?.pid;
      if (pid === undefined) return { count: 0, hasMore: false };
      const ids = this.db
        .query<{ id: string }, [number, number, number]>(
          "SELECT id FROM records WHERE pid = ? AND seq <= ? AND pruned_at IS NULL ORDER BY seq LIMIT ?",
        )
        .all(pid, untilSeq, limit + 1);
      const hasMore = ids.length > limit;
      if (hasMore) ids.pop();
      const prune = this.db.query("UPDATE records SET data = NULL, pruned_at = ? WHERE pid = ? AND id = ?");
      for (const { id } of ids) prune.run(now, pid, id);
      return { count: ids.length, hasMore };
    })();
  }

  async secret(scope: RecordScope): Promise<Uint8Array | null> {
    return this.partitionRow(scope)?.secret ?? null;
  }

  async beginDeleteTracking(scope: RecordScope, continuing = false): Promise<number> {
    return this.db.transaction(() => {
      const partition = this.ensurePartition(scope);
      if (continuing && partition.mark > 0) return partition.mark;
      this.db.query("UPDATE record_partitions SET mark = mark + 1 WHERE pid = ?").run(partition.pid);
      return partition.mark + 1;
    })();
  }

  async endDeleteTracking(scope: RecordScope, mark: number, now: number, maxIds: number) {
    const ids: string[] = [];
    let count = 0;
    for (;;) {
      const done = this.db.transaction(() => {
        const partition = this.partitionRow(scope);
        if (!partition) return 0;
        const stale = this.db
          .query<{ id: string }, [number, number, number]>(
            "SELECT id FROM records WHERE pid = ? AND seen_mark < ? AND action != 'DELETED' ORDER BY id LIMIT ?",
          )
          .all(partition.pid, mark, DELETE_CHUNK);
        const at = Math.max(now, partition.last_modified_at);
        let seq = partition.next_seq;
        const del = this.db.query(
          "UPDATE records SET action = 'DELETED', deleted_at = ?, last_modified_at = ?, seq = ? WHERE pid = ? AND id = ?",
        );
        for (const { id } of stale) {
          del.run(at, at, seq++, partition.pid, id);
          if (ids.length < maxIds) ids.push(id);
        }
        if (stale.length) this.advance(partition.pid, seq, at, 0);
        return stale.length;
      })();
      count += done;
      if (done < DELETE_CHUNK) return { count, ids };
    }
  }

  async models(scope: ConnectionScope): Promise<ModelSummary[]> {
    return this.db
      .query<{ model: string; variant: string; record_count: number; last_modified_at: number }, string[]>(
        `SELECT model, variant, record_count, last_modified_at FROM record_partitions
         WHERE environment_id = ? AND provider_config_key = ? AND connection_id = ? ORDER BY model, variant`,
      )
      .all(scope.environmentId, scope.providerConfigKey, scope.connectionId)
      .map((r) => ({ model: r.model, variant: r.variant, count: r.record_count, lastModifiedAt: r.last_modified_at }));
  }

  async clear(scope: ConnectionScope, which?: { model: string; variant: string }): Promise<number> {
    return this.db.transaction(() => {
      const extra = which ? " AND model = ? AND variant = ?" : "";
      const args = [scope.environmentId, scope.providerConfigKey, scope.connectionId];
      if (which) args.push(which.model, which.variant);
      const pids = this.db
        .query<{ pid: number }, string[]>(
          `SELECT pid FROM record_partitions WHERE environment_id = ? AND provider_config_key = ? AND connection_id = ?${extra}`,
        )
        .all(...args);
      let removed = 0;
      for (const { pid } of pids) {
        removed += this.db.query("DELETE FROM records WHERE pid = ?").run(pid).changes;
        this.db.query("DELETE FROM record_partitions WHERE pid = ?").run(pid);
      }
      return removed;
    })();
  }

  async forgetConnection(scope: ConnectionScope): Promise<number> {
    const removed = await this.clear(scope);
    this.db
      .query("DELETE FROM sync_checkpoints WHERE environment_id = ? AND provider_config_key = ? AND connection_id = ?")
      .run(scope.environmentId, scope.providerConfigKey, scope.connectionId);
    return removed;
  }

  async getCheckpoint(key: CheckpointKey): Promise<Checkpoint | null> {
    const row = this.db
      .query<{ checkpoint: string }, string[]>(
        `SELECT checkpoint FROM sync_checkpoints WHERE environment_id = ? AND provider_config_key = ?
         AND connection_id = ? AND sync_name = ? AND variant = ?`,
      )
      .get(...checkpointArgs(key));
    return row ? (JSON.parse(row.checkpoint) as Checkpoint) : null;
  }

  async saveCheckpoint(key: CheckpointKey, checkpoint: Checkpoint, now: number): Promise<void> {
    this.db
      .query(
        `INSERT INTO sync_checkpoints (environment_id, provider_config_key, connection_id, sync_name, variant, checkpoint, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (environment_id, provider_config_key, connection_id, sync_name, variant)
         DO UPDATE SET checkpoint = excluded.checkpoint, updated_at = excluded.updated_at`,
      )
      .run(...checkpointArgs(key), JSON.stringify(checkpoint), now);
  }

  async clearCheckpoint(key: CheckpointKey): Promise<void> {
    this.db
      .query(
        `DELETE FROM sync_checkpoints WHERE environment_id = ? AND provider_config_key = ?
         AND connection_id = ? AND sync_name = ? AND variant = ?`,
      )
      .run(...checkpointArgs(key));
  }

  async close(): Promise<void> {
    if (this.ownsDatabase) this.db.close();
  }

  /** A save inside the caller's transaction. */
  private saveNow(scope: RecordScope, records: PreparedRecord[], options: SaveOptions): WriteCounts {
    const partition = this.ensurePartition(scope);
    const unique = uniqueById(records);
    const existing = new Map<string, ExistingRecord>();
    for (const row of this.rowsByIds(
      partition.pid,
      unique.map((r) => r.id),
    )) {
      existing.set(row.id, {
        hash: row.hash,
        action: row.action,
        lastModifiedAt: row.last_modified_at,
        pruned: row.pruned_at !== null,
        seenMark: row.seen_mark,
      });
    }
    const state: PartitionState = {
      nextSeq: partition.next_seq,
      mark: partition.mark,
      lastModifiedAt: partition.last_modified_at,
    };
    const plan = planSave(unique, existing, state, options.now, options.keepModifiedAfter ?? null);
    this.apply(partition.pid, plan, partition.mark);
    const changed = plan.counts.added + plan.counts.updated > 0;
    this.advance(partition.pid, plan.nextSeq, changed ? plan.at : partition.last_modified_at, plan.counts.added);
    return plan.counts;
  }

  private apply(pid: number, plan: SavePlan, mark: number): void {
    const insert = this.db.query(
      `INSERT INTO records (pid, id, seq, data, hash, action, first_seen_at, last_modified_at, deleted_at, pruned_at, seen_mark)
       VALUES (?, ?, ?, ?, ?, 'ADDED', ?, ?, NULL, NULL, ?)`,
    );
    const change = this.db.query(
      `UPDATE records SET seq = ?, data = ?, hash = ?, action = 'UPDATED', last_modified_at = ?, deleted_at = NULL,
         pruned_at = NULL, seen_mark = ? WHERE pid = ? AND id = ?`,
    );
    const touch = this.db.query("UPDATE records SET seen_mark = ? WHERE pid = ? AND id = ?");
    const restore = this.db.query(
      "UPDATE records SET seen_mark = ?, data = ?, pruned_at = NULL WHERE pid = ? AND id = ?",
    );
    for (const w of plan.writes) {
      const r = w.record;
      if (w.kind === "insert") insert.run(pid, r.id, w.seq, r.data, r.hash, plan.at, plan.at, mark);
      else if (w.kind === "change") change.run(w.seq, r.data, r.hash, plan.at, mark, pid, r.id);
      else if (w.restore) restore.run(mark, r.data, pid, r.id);
      else touch.run(mark, pid, r.id);
    }
  }

  private advance(pid: number, nextSeq: number, lastModifiedAt: number, added: number): void {
    this.db
      .query(
        "UPDATE record_partitions SET next_seq = ?, last_modified_at = ?, record_count = record_count + ? WHERE pid = ?",
      )
      .run(nextSeq, lastModifiedAt, added, pid);
  }

  private rowsByIds(pid: number, ids: string[]): RecordRow[] {
    if (ids.length === 0) return [];
    return this.db
      .query<RecordRow, [number, string]>(
        `SELECT ${COLUMNS} FROM records WHERE pid = ? AND id IN (SELECT value FROM json_each(?))`,
      )
      .all(pid, JSON.stringify(ids));
  }

  private partitionRow(scope: RecordScope): PartitionRow | null {
    return this.db
      .query<PartitionRow, string[]>(
        `SELECT pid, secret, next_seq, last_modified_at, mark, record_count FROM record_partitions WHERE ${SCOPE_WHERE}`,
      )
      .get(...scopeArgs(scope));
  }

  private ensurePartition(scope: RecordScope): PartitionRow {
    const found = this.partitionRow(scope);
    if (found) return found;
    this.db
      .query(
        `INSERT INTO record_partitions (environment_id, provider_config_key, connection_id, model, variant, secret,
           next_seq, last_modified_at, mark, record_count) VALUES (?, ?, ?, ?, ?, ?, 1, 0, 0, 0)`,
      )
      .run(...scopeArgs(scope), randomBytes(32));
    return this.partitionRow(scope) as PartitionRow;
  }
}

const checkpointArgs = (k: CheckpointKey) => [
  k.environmentId,
  k.providerConfigKey,
  k.connectionId,
  k.syncName,
  k.variant,
];

function toStored(row: RecordRow): StoredRecord {
  return {
    id: row.id,
    data: row.data,
    seq: row.seq,
    action: row.action,
    firstSeenAt: row.first_seen_at,
    lastModifiedAt: row.last_modified_at,
    deletedAt: row.deleted_at,
    prunedAt: row.pruned_at,
  };
}
