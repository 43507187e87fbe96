/** Migrations of the scripts service's own tables (append-only: never edit a shipped one). */
export const SERVICE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE sync_schedules (
     environment_id TEXT NOT NULL,
     provider_config_key TEXT NOT NULL,
     script_name TEXT NOT NULL,
     connection_id TEXT NOT NULL,
     next_due_at INTEGER,
     lease_holder TEXT,
     lease_until INTEGER,
     last_success_at INTEGER,
     PRIMARY KEY (environment_id, provider_config_key, script_name, connection_id)
   );
   CREATE INDEX sync_schedules_due ON sync_schedules (next_due_at) WHERE next_due_at IS NOT NULL;
   CREATE INDEX sync_schedules_by_connection ON sync_schedules (environment_id, provider_config_key, connection_id);
   CREATE TABLE script_options (
     environment_id TEXT NOT NULL,
     provider_config_key TEXT NOT NULL,
     script_name TEXT NOT NULL,
     forward_webhooks_too INTEGER NOT NULL,
     PRIMARY KEY (environment_id, provider_config_key, script_name)
   );`,
  // A trigger's queued follow-up run, and a per-connection frequency.
  `ALTER TABLE sync_schedules ADD COLUMN follow_up_mode TEXT;
   ALTER TABLE sync_schedules ADD COLUMN follow_up_at INTEGER;
   ALTER TABLE sync_schedules ADD COLUMN frequency TEXT;
   ALTER TABLE sync_schedules ADD COLUMN frequency_ms INTEGER;
   CREATE INDEX sync_schedules_follow_up ON sync_schedules (follow_up_at) WHERE follow_up_at IS NOT NULL;`,
  // One deploy at a time per environment.
  `CREATE TABLE deploy_locks (
     environment_id TEXT NOT NULL PRIMARY KEY,
     holder TEXT NOT NULL,
     lease_until INTEGER NOT NULL
   );`,
];

export interface ScheduleRow {
  environment_id: string;
  provider_config_key: string;
  script_name: string;
  connection_id: string;
  next_due_at: number | null;
  lease_holder: string | null;
  lease_until: number | null;
  last_success_at: number | null;
  follow_up_mode: string | null;
  follow_up_at: number | null;
  frequency: string | null;
  frequency_ms: number | null;
}
