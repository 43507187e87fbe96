import type { Database } from "bun:sqlite";
import { migrate, openDatabase } from "@junction/platform";
import type { ScriptEntry } from "../declaration/script-declaration.ts";
import { capLogs, DEFAULT_STORED_LOG_BYTES } from "./cap-logs.ts";
import {
  pageSize,
  type RunFilter,
  type RunFinish,
  type RunTrigger,
  type ScriptRunRecord,
  type StoredRunStatus,
} from "./records.ts";
import { MIGRATIONS, type ScriptRunRow } from "./sqlite-schema.ts";
import type { ScriptRunStore } from "./stores.ts";

type Params = Record<string, string | number | null>;

/** Filters of `list`, each a column and its parameter. */
const FILTERS: [keyof RunFilter, string][] = [
  ["providerConfigKey", "provider_config_key"],
  ["scriptName", "script_name"],
  ["connectionId", "connection_id"],
  ["status", "status"],
  ["trigger", "trigger"],
];

/** Script runs on SQLite, newest first by id (run ids sort by creation time). */
export class SqliteScriptRunStore implements ScriptRunStore {
  private ownsDatabase = false;

  constructor(
    private readonly db: Database,
    private readonly maxLogBytes = DEFAULT_STORED_LOG_BYTES,
  ) {
    migrate(db, "scripts", MIGRATIONS);
  }

  static open(path: string, maxLogBytes?: number): SqliteScriptRunStore {
    const store = new SqliteScriptRunStore(openDatabase(path), maxLogBytes);
    store.ownsDatabase = true;
    return store;
  }

  async insert(run: ScriptRunRecord): Promise<void> {
    const logs = capLogs(run.logs, this.maxLogBytes);
    this.db
      .query(
        `INSERT INTO script_runs (id, environment_id, provider_config_key, script_name, script_version, connection_id,
           trigger, entry, attempt, status, started_at, finished_at, duration_ms, logs, logs_truncated, error, caller, input)
         VALUES ($id, $environment_id, $provider_config_key, $script_name, $script_version, $connection_id,
           $trigger, $entry, $attempt, $status, $started_at, $finished_at, $duration_ms, $logs, $logs_truncated, $error,
           $caller, $input)`,
      )
      .run({
        id: run.id,
        environment_id: run.environmentId,
        provider_config_key: run.providerConfigKey,
        script_name: run.scriptName,
        script_version: run.scriptVersion,
        connection_id: run.connectionId,
        trigger: run.trigger,
        entry: run.entry,
        attempt: run.attempt,
        status: run.status,
        started_at: run.startedAt,
        finished_at: run.finishedAt,
        duration_ms: run.durationMs,
        logs: JSON.stringify(logs.logs),
        logs_truncated: run.logsTruncated || logs.truncated ? 1 : 0,
        error: run.error ? JSON.stringify(run.error) : null,
        caller: run.caller ? JSON.stringify(run.caller) : null,
        input: run.input === undefined ? null : JSON.stringify(run.input),
      });
  }

  async finish(environmentId: string, id: string, finish: RunFinish): Promise<ScriptRunRecord | null> {
    const logs = capLogs(finish.logs, this.maxLogBytes);
    const row = this.db
      .query<ScriptRunRow, [Params]>(
        `UPDATE script_runs SET status = $status, finished_at = $finished_at, duration_ms = $duration_ms, logs = $logs,
           logs_truncated = $logs_truncated, error = $error, output = $output,
           attempt = COALESCE($attempt, attempt)
         WHERE environment_id = $environment_id AND id = $id AND status = 'running'
           AND ($attempt IS NULL OR attempt <= $attempt)
         RETURNING *`,
      )
      .get({
        environment_id: environmentId,
        id,
        status: finish.status,
        finished_at: finish.finishedAt,
        duration_ms: finish.durationMs,
        logs: JSON.stringify(logs.logs),
        logs_truncated: finish.logsTruncated || logs.truncated ? 1 : 0,
        error: finish.error ? JSON.stringify(finish.error) : null,
        output: finish.output === undefined ? null : JSON.stringify(finish.output),
        attempt: finish.attempt ?? null,
      });
    return row ? fromRow(row) : null;
  }

  async claimAttempt(environmentId: string, id: string, attempt: number): Promise<boolean> {
    const changed = this.db
      .query(
        `UPDATE script_runs SET attempt = $attempt
         WHERE environment_id = $environment_id AND id = $id AND status = 'running' AND attempt < $attempt`,
      )
      .run({ environment_id: environmentId, id, attempt });
    return changed.changes > 0;
  }

  async get(environmentId: string, id: string): Promise<ScriptRunRecord | null> {
    const row = this.db
      .query<ScriptRunRow, [Params]>("SELECT * FROM script_runs WHERE environment_id = $environment_id AND id = $id")
      .get({ environment_id: environmentId, id });
    return row ? fromRow(row) : null;
  }

  async list(environmentId: string, filter: RunFilter = {}): Promise<ScriptRunRecord[]> {
    const where = ["environment_id = $environment_id"];
    const params: Params = { environment_id: environmentId, limit: pageSize(filter.limit) };
    for (const [key, column] of FILTERS) {
      const value = filter[key];
      if (value === undefined) continue;
      where.push(`${column} = $${column}`);
      params[column] = value as string;
    }
    if (filter.before !== undefined) {
      where.push("id < $before");
      params.before = filter.before;
    }
    return this.db
      .query<ScriptRunRow, [Params]>(
        `SELECT * FROM script_runs WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT $limit`,
      )
      .all(params)
      .map(fromRow);
  }

  async deleteFinishedBefore(before: number): Promise<number> {
    return this.db
      .query("DELETE FROM script_runs WHERE finished_at IS NOT NULL AND finished_at < $before")
      .run({ before }).changes;
  }

  /** Closes the database only when this store opened it (`open`); a shared one is its owner's to close. */
  async close(): Promise<void> {
    if (this.ownsDatabase) this.db.close();
  }
}

function fromRow(row: ScriptRunRow): ScriptRunRecord {
  return {
    id: row.id,
    environmentId: row.environment_id,
    providerConfigKey: row.provider_config_key,
    scriptName: row.script_name,
    scriptVersion: row.script_version,
    connectionId: row.connection_id,
    trigger: row.trigger as RunTrigger,
    entry: row.entry as ScriptEntry,
    attempt: row.attempt,
    status: row.status as StoredRunStatus,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    durationMs: row.duration_ms,
    logs: JSON.parse(row.logs),
    logsTruncated: row.logs_truncated === 1,
    error: row.error === null ? null : JSON.parse(row.error),
    ...(row.output === null ? {} : { output: JSON.parse(row.output) }),
    ...(row.input === null ? {} : { input: JSON.parse(row.input) }),
    ...(row.caller === null ? {} : { caller: JSON.parse(row.caller) }),
  };
}
