/** Migrations of the records store (append-only: never edit a shipped one). */
export const RECORD_MIGRATIONS: readonly string[] = [
  `CREATE TABLE record_partitions (
     pid INTEGER PRIMARY KEY,
     environment_id TEXT NOT NULL,
     provider_config_key TEXT NOT NULL,
     connection_id TEXT NOT NULL,
     model TEXT NOT NULL,
     variant TEXT NOT NULL,
     secret BLOB NOT NULL,
     next_seq INTEGER NOT NULL,
     last_modified_at INTEGER NOT NULL,
     mark INTEGER NOT NULL,
     record_count INTEGER NOT NULL,
     UNIQUE (environment_id, provider_config_key, connection_id, model, variant)
   );
   CREATE TABLE records (
     rid INTEGER PRIMARY KEY,
     pid INTEGER NOT NULL,
     id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     data TEXT,
     hash TEXT NOT NULL,
     action TEXT NOT NULL,
     first_seen_at INTEGER NOT NULL,
     last_modified_at INTEGER NOT NULL,
     deleted_at INTEGER,
     pruned_at INTEGER,
     seen_mark INTEGER NOT NULL
   );
   CREATE UNIQUE INDEX records_by_id ON records (pid, id);
   CREATE UNIQUE INDEX records_by_seq ON records (pid, seq);
   CREATE TABLE sync_checkpoints (
     environment_id TEXT NOT NULL,
     provider_config_key TEXT NOT NULL,
     connection_id TEXT NOT NULL,
     sync_name TEXT NOT NULL,
     variant TEXT NOT NULL,
     checkpoint TEXT NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (environment_id, provider_config_key, connection_id, sync_name, variant)
   );`,
  `ALTER TABLE record_partitions ADD COLUMN read_seq INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE record_partitions ADD COLUMN last_run_at INTEGER NOT NULL DEFAULT 0;
   CREATE TABLE record_retention (
     environment_id TEXT NOT NULL,
     provider_config_key TEXT NOT NULL,
     payload_days INTEGER NOT NULL,
     records_days INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (environment_id, provider_config_key)
   );`,
];

/** A row of `records` as read. */
export interface RecordRow {
  id: string;
  seq: number;
  data: string | null;
  hash: string;
  action: "ADDED" | "UPDATED" | "DELETED";
  first_seen_at: number;
  last_modified_at: number;
  deleted_at: number | null;
  pruned_at: number | null;
  seen_mark: number;
}

/** A row of `record_partitions` as read. */
export interface PartitionRow {
  pid: number;
  secret: Uint8Array;
  next_seq: number;
  last_modified_at: number;
  mark: number;
  record_count: number;
}
