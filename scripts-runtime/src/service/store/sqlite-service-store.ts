import type { Database } from "bun:sqlite";
import { migrate, openDatabase } from "@junction/platform";
import type { ClaimOutcome, Lease, ScheduleEntry, ScheduleKey, ScriptOptions } from "./records.ts";
import type { ScriptsServiceStore } from "./service-store.ts";
import { type ScheduleRow, SERVICE_MIGRATIONS } from "./sqlite-service-schema.ts";

type Params = Record<string, string | number | null>;
const KEY =
  "environment_id = $environment_id AND provider_config_key = $provider_config_key AND script_name = $script_name AND connection_id = $connection_id";
const LEASE_FREE = "(lease_until IS NULL OR lease_until <= $now)";

/**
 * Schedules and script options on SQLite. Every claim is one conditional UPDATE (compare-and-set on
 * next_due_at and the lease), atomic across the processes sharing the file.
 */
export class SqliteScriptsServiceStore implements ScriptsServiceStore {
  private ownsDatabase = false;
  private readonly write: <T>(fn: () => T) => T;

  /** Applies the service's migrations to `db` (opened with `openDatabase`). */
  constructor(private readonly db: Database) {
    migrate(db, "scripts-service", SERVICE_MIGRATIONS);
    const tx = db.transaction((fn: () => unknown) => fn());
    this.write = <T>(fn: () => T) => tx.immediate(fn) as T;
  }

  static open(path: string): SqliteScriptsServiceStore {
    const store = new SqliteScriptsServiceStore(openDatabase(path));
    store.ownsDatabase = true;
    return store;
  }

  async ensureSchedules(entries: (ScheduleKey & { nextDueAt: number | null })[]): Promise<number> {
    if (entries.length === 0) return 0;
    const insert = this.db.query<unknown, [Params]>(
      `INSERT INTO sync_schedules (environment_id, provider_config_key, script_name, connection_id, next_due_at)
       VALUES ($environment_id, $provider_config_key, $script_name, $connection_id, $next_due_at)
       ON CONFLICT DO NOTHING`,
    );
    return this.write(() => {
      let added = 0;
      for (const e of entries) added += insert.run({ ...keyParams(e), next_due_at: e.nextDueAt }).changes;
      return added;
    });
  }

  async getSchedule(key: ScheduleKey): Promise<ScheduleEntry | null> {
    const row = this.db.query<ScheduleRow, [Params]>(`SELECT * FROM sync_schedules WHERE ${KEY}`).get(keyParams(key));
    return row ? fromRow(row) : null;
  }

  async listDue(now: number, limit: number): Promise<ScheduleEntry[]> {
    return this.db
      .query<ScheduleRow, [Params]>(
        "SELECT * FROM sync_schedules WHERE next_due_at IS NOT NULL AND next_due_at <= $now ORDER BY next_due_at LIMIT $limit",
      )
      .all({ now, limit })
      .map(fromRow);
  }

  async earliestDue(): Promise<number | null> {
    const row = this.db
      .query<{ at: number | null }, []>(
        "SELECT MIN(next_due_at) AS at FROM sync_schedules WHERE next_due_at IS NOT NULL",
      )
      .get();
    return row?.at ?? null;
  }

  async claimDue(key: ScheduleKey, due: number, next: number, lease: Lease, now: number): Promise<ClaimOutcome> {
    const claimed = this.db
      .query<unknown, [Params]>(
        `UPDATE sync_schedules SET next_due_at = $next, lease_holder = $holder, lease_until = $until
         WHERE ${KEY} AND next_due_at = $due AND ${LEASE_FREE}`,
      )
      .run({ ...keyParams(key), next, due, now, holder: lease.holder, until: lease.until }).changes;
    if (claimed === 1) return "claimed";
    const row = await this.getSchedule(key);
    return row?.nextDueAt === due ? "busy" : "lost";
  }

  async skipDue(key: ScheduleKey, due: number, next: number): Promise<boolean> {
    return (
      this.db
        .query<unknown, [Params]>(`UPDATE sync_schedules SET next_due_at = $next WHERE ${KEY} AND next_due_at = $due`)
        .run({ ...keyParams(key), next, due }).changes === 1
    );
  }

  async acquireLease(key: ScheduleKey, lease: Lease, now: number, nextDueAt: number | null): Promise<boolean> {
    const changes = this.db
      .query<unknown, [Params]>(
        `INSERT INTO sync_schedules (environment_id, provider_config_key, script_name, connection_id, next_due_at, lease_holder, lease_until)
         VALUES ($environment_id, $provider_config_key, $script_name, $connection_id, $next_due_at, $holder, $until)
         ON CONFLICT (environment_id, provider_config_key, script_name, connection_id) DO UPDATE SET lease_holder = excluded.lease_holder, lease_until = excluded.lease_until
         WHERE ${LEASE_FREE}`,
      )
      .run({ ...keyParams(key), next_due_at: nextDueAt, holder: lease.holder, until: lease.until, now }).changes;
    return changes === 1;
  }

  async releaseLease(key: ScheduleKey, holder: string, succeededAt: number | null): Promise<void> {
    this.db
      .query<unknown, [Params]>(
        `UPDATE sync_schedules SET lease_holder = NULL, lease_until = NULL,
           last_success_at = COALESCE($succeeded_at, last_success_at)
         WHERE ${KEY} AND lease_holder = $holder`,
      )
      .run({ ...keyParams(key), holder, succeeded_at: succeededAt });
  }

  async removeScriptSchedules(environmentId: string, providerConfigKey: string, scriptName: string): Promise<number> {
    return this.db
      .query<unknown, [Params]>(
        "DELETE FROM sync_schedules WHERE environment_id = $e AND provider_config_key = $p AND script_name = $s",
      )
      .run({ e: environmentId, p: providerConfigKey, s: scriptName }).changes;
  }

  async removeConnectionSchedules(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<number> {
    return this.db
      .query<unknown, [Params]>(
        "DELETE FROM sync_schedules WHERE environment_id = $e AND provider_config_key = $p AND connection_id = $c",
      )
      .run({ e: environmentId, p: providerConfigKey, c: connectionId }).changes;
  }

  async getOptions(
    environmentId: string,
    providerConfigKey: string,
    scriptName: string,
  ): Promise<ScriptOptions | null> {
    const row = this.db
      .query<{ forward_webhooks_too: number }, [Params]>(
        "SELECT forward_webhooks_too FROM script_options WHERE environment_id = $e AND provider_config_key = $p AND script_name = $s",
      )
      .get({ e: environmentId, p: providerConfigKey, s: scriptName });
    return row ? { forwardWebhooksToo: row.forward_webhooks_too === 1 } : null;
  }

  async setOptions(
    environmentId: string,
    providerConfigKey: string,
    scriptName: string,
    options: ScriptOptions,
  ): Promise<void> {
    this.db
      .query<unknown, [Params]>(
        `INSERT INTO script_options (environment_id, provider_config_key, script_name, forward_webhooks_too)
         VALUES ($e, $p, $s, $f)
         ON CONFLICT (environment_id, provider_config_key, script_name) DO UPDATE SET forward_webhooks_too = excluded.forward_webhooks_too`,
      )
      .run({ e: environmentId, p: providerConfigKey, s: scriptName, f: options.forwardWebhooksToo ? 1 : 0 });
  }

  async removeOptions(environmentId: string, providerConfigKey: string, scriptName: string): Promise<void> {
    this.db
      .query<unknown, [Params]>(
        "DELETE FROM script_options WHERE environment_id = $e AND provider_config_key = $p AND script_name = $s",
      )
      .run({ e: environmentId, p: providerConfigKey, s: scriptName });
  }

  async close(): Promise<void> {
    if (this.ownsDatabase) this.db.close();
  }
}

function keyParams(k: ScheduleKey): Params {
  return {
    environment_id: k.environmentId,
    provider_config_key: k.providerConfigKey,
    script_name: k.scriptName,
    connection_id: k.connectionId,
  };
}

function fromRow(r: ScheduleRow): ScheduleEntry {
  return {
    environmentId: r.environment_id,
    providerConfigKey: r.provider_config_key,
    scriptName: r.script_name,
    connectionId: r.connection_id,
    nextDueAt: r.next_due_at,
    leaseHolder: r.lease_holder,
    leaseUntil: r.lease_until,
    lastSuccessAt: r.last_success_at,
  };
}
