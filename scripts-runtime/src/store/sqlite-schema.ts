/** Migrations of the scripts component (append-only: never edit a shipped one). */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE script_versions (
     environment_id TEXT NOT NULL,
     provider_config_key TEXT NOT NULL,
     name TEXT NOT NULL,
     version INTEGER NOT NULL,
     id TEXT NOT NULL UNIQUE,
     source TEXT NOT NULL,
     compiled TEXT NOT NULL,
     declaration TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (environment_id, provider_config_key, name, version)
   );
   CREATE TABLE script_heads (
     environment_id TEXT NOT NULL,
     provider_config_key TEXT NOT NULL,
     name TEXT NOT NULL,
     last_version INTEGER NOT NULL,
     PRIMARY KEY (environment_id, provider_config_key, name)
   );
   CREATE TABLE script_runs (
     id TEXT NOT NULL PRIMARY KEY,
     environment_id TEXT NOT NULL,
     provider_config_key TEXT NOT NULL,
     script_name TEXT NOT NULL,
     script_version INTEGER NOT NULL,
     connection_id TEXT,
     trigger TEXT NOT NULL,
     entry TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     status TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     finished_at INTEGER,
     duration_ms REAL,
     logs TEXT NOT NULL,
     logs_truncated INTEGER NOT NULL,
     error TEXT
   );
   CREATE INDEX script_runs_by_environment ON script_runs (environment_id, id);
   CREATE INDEX script_runs_by_script ON script_runs (environment_id, provider_config_key, script_name, id);
   CREATE INDEX script_runs_by_connection ON script_runs (environment_id, connection_id, id);
   CREATE INDEX script_runs_by_finish ON script_runs (finished_at) WHERE finished_at IS NOT NULL;`,
  // An action's result, JSON text.
  `ALTER TABLE script_runs ADD COLUMN output TEXT;`,
  // An action run's caller and input, JSON text.
  `ALTER TABLE script_runs ADD COLUMN caller TEXT;
   ALTER TABLE script_runs ADD COLUMN input TEXT;`,
];

export interface ScriptVersionRow {
  environment_id: string;
  provider_config_key: string;
  name: string;
  version: number;
  id: string;
  source: string;
  compiled: string;
  declaration: string;
  created_at: number;
}

export interface ScriptRunRow {
  id: string;
  environment_id: string;
  provider_config_key: string;
  script_name: string;
  script_version: number;
  connection_id: string | null;
  trigger: string;
  entry: string;
  attempt: number;
  status: string;
  started_at: number;
  finished_at: number | null;
  duration_ms: number | null;
  logs: string;
  logs_truncated: number;
  error: string | null;
  output: string | null;
  caller: string | null;
  input: string | null;
}
