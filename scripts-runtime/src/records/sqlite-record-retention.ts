import type { Database } from "bun:sqlite";
import type {
  ConnectionScope,
  IntegrationKey,
  RecordRetention,
  RecordScope,
  RetentionCutoffs,
  RetentionRule,
} from "./record-store.ts";

/** Rows changed per transaction by retention: a sweep never holds the write lock long. */
const CHUNK = 5_000;

interface RuleRow {
  environment_id: string;
  provider_config_key: string;
  payload_days: number;
  records_days: number;
}

const toRule = (r: RuleRow) => ({
  environmentId: r.environment_id,
  providerConfigKey: r.provider_config_key,
  payloadDays: r.payload_days,
  recordsDays: r.records_days,
});

/** Retention on the records store's SQLite database (its tables and migrations). */
export class SqliteRecordRetention implements RecordRetention {
  constructor(private readonly db: Database) {}

  async markRead(scope: RecordScope, seq: number): Promise<void> {
    this.db
      .query(
        `UPDATE record_partitions SET read_seq = MAX(read_seq, ?) WHERE environment_id = ? AND provider_config_key = ?
         AND connection_id = ? AND model = ? AND variant = ?`,
      )
      .run(seq, scope.environmentId, scope.providerConfigKey, scope.connectionId, scope.model, scope.variant);
  }

  async markRun(scope: ConnectionScope, models: { model: string; variant: string }[], now: number): Promise<void> {
    const mark = this.db.query(
      `UPDATE record_partitions SET last_run_at = MAX(last_run_at, ?) WHERE environment_id = ? AND provider_config_key = ?
       AND connection_id = ? AND model = ? AND variant = ?`,
    );
    this.db.transaction(() => {
      for (const m of models) {
        mark.run(now, scope.environmentId, scope.providerConfigKey, scope.connectionId, m.model, m.variant);
      }
    })();
  }

  async getRule(key: IntegrationKey): Promise<RetentionRule | null> {
    const row = this.db
      .query<RuleRow, [string, string]>(
        "SELECT * FROM record_retention WHERE environment_id = ? AND provider_config_key = ?",
      )
      .get(key.environmentId, key.providerConfigKey);
    return row ? { payloadDays: row.payload_days, recordsDays: row.records_days } : null;
  }

  async setRule(key: IntegrationKey, rule: RetentionRule, now: number): Promise<void> {
    this.db
      .query(
        `INSERT INTO record_retention (environment_id, provider_config_key, payload_days, records_days, updated_at)
         VALUES (?, ?, ?, ?, ?) ON CONFLICT (environment_id, provider_config_key) DO UPDATE SET
         payload_days = excluded.payload_days, records_days = excluded.records_days, updated_at = excluded.updated_at`,
      )
      .run(key.environmentId, key.providerConfigKey, rule.payloadDays, rule.recordsDays, now);
  }

  async listRules() {
    return this.db.query<RuleRow, []>("SELECT * FROM record_retention").all().map(toRule);
  }

  async apply(key: IntegrationKey, cutoffs: RetentionCutoffs, now: number) {
    const parts = this.db
      .query<{ pid: number; read_seq: number; ran: number }, [string, string]>(
        `SELECT pid, read_seq, MAX(last_run_at, last_modified_at) AS ran FROM record_partitions
         WHERE environment_id = ? AND provider_config_key = ? AND read_seq > 0`,
      )
      .all(key.environmentId, key.providerConfigKey);
    let pruned = 0;
    let deleted = 0;
    for (const part of parts) {
      if (cutoffs.deleteBefore !== null && part.ran < cutoffs.deleteBefore) {
        deleted += this.inChunks(
          "DELETE FROM records WHERE rid IN (SELECT rid FROM records WHERE pid = ? AND seq <= ? LIMIT ?)",
          [part.pid, part.read_seq],
          (n) =>
            this.db
              .query("UPDATE record_partitions SET record_count = record_count - ? WHERE pid = ?")
              .run(n, part.pid),
        );
      }
      if (cutoffs.pruneBefore !== null) {
        pruned += this.inChunks(
          `UPDATE records SET data = NULL, pruned_at = ? WHERE rid IN (SELECT rid FROM records WHERE pid = ?
           AND seq <= ? AND last_modified_at < ? AND pruned_at IS NULL LIMIT ?)`,
          [now, part.pid, part.read_seq, cutoffs.pruneBefore],
        );
      }
    }
    return { pruned, deleted };
  }

  /** Runs `sql` (its last parameter the chunk size) in transactions until it changes fewer rows. */
  private inChunks(sql: string, args: number[], after?: (changed: number) => void): number {
    const statement = this.db.query(sql);
    let total = 0;
    for (;;) {
      const changed = this.db.transaction(() => {
        const n = statement.run(...args, CHUNK).changes;
        after?.(n);
        return n;
      })();
      total += changed;
      if (changed < CHUNK) return total;
    }
  }
}
