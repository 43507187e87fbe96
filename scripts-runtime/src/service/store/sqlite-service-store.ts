import type { Database } from "bun:sqlite";
import { migrate, openDatabase } from "@junction/platform";
import type { ClaimOutcome, FollowUpMode, Lease, ScheduleEntry, ScheduleKey, ScriptOptions } from "./records.ts";
import { mergeDue } from "./merge-due.ts";
import type { ScriptsServiceStore } from "./service-store.ts";
import { type ScheduleRow, SERVICE_MIGRATIONS } from "./sqlite-service-schema.ts";

type Params = Record<string, string | number | null>;
const KEY =
  "environment_id = $environment_id AND provider_config_key = $provider_config_key AND script_name = $script_name AND connection_id = $connection_id";
const LEASE_FREE = "(lease_until IS NULL OR lease_until <= $now)";
const INSERT_ROW =
  "INSERT INTO sync_schedules (environment_id, provider_config_key, script_name, connection_id, next_due_at) VALUES ($environment_id, $provider_config_key, $script_name, $connection_id, $next_due_at) ON CONFLICT DO NOTHING";

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
    const due = this.db
      .query<ScheduleRow, [Params]>(
        "SELECT * FROM sync_schedules WHERE next_due_at IS NOT NULL AND next_due_at <= $now ORDER BY next_due_at LIMIT $limit",
      )
      .all({ now, limit });
    const followUps = this.db
      .query<ScheduleRow, [Params]>(
        "SELECT * FROM sync_schedules WHERE follow_up_at IS NOT NULL AND follow_up_at <= $now ORDER BY follow_up_at LIMIT $limit",
      )
      .all({ now, limit });
    return mergeDue(due.map(fromRow), followUps.map(fromRow), now, limit);
  }

  async earliestDue(): Promise<number | null> {
    const row = this.db
      .query<{ due: number | null; follow_up: number | null }, []>(
        `SELECT (SELECT MIN(next_due_at) FROM sync_schedules WHERE next_due_at IS NOT NULL) AS due,
                (SELECT MIN(follow_up_at) FROM sync_schedules WHERE follow_up_at IS NOT NULL) AS follow_up`,
      )
      .get();
    const times = [row?.due, row?.follow_up].filter((t): t is number => typeof t === "number");
    return times.length > 0 ? Math.min(...times) : null;
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

  async releaseLease(
    key: ScheduleKey,
    holder: string,
    succeededAt: number | null,
    renew?: Lease,
  ): Promise<FollowUpMode | null> {
    const params = { ...keyParams(key), holder, succeeded_at: succeededAt };
    return this.write(() => {
      const queued = renew
        ? this.db
            .query<{ follow_up_mode: string | null }, [Params]>(
              `SELECT follow_up_mode FROM sync_schedules WHERE ${KEY} AND lease_holder = $holder`,
            )
            .get({ ...keyParams(key), holder })?.follow_up_mode
        : null;
      if (renew && queued) {
        this.db
          .query<unknown, [Params]>(
            `UPDATE sync_schedules SET lease_until = $until, follow_up_mode = NULL, follow_up_at = NULL,
               last_success_at = COALESCE($succeeded_at, last_success_at)
             WHERE ${KEY}`,
          )
          .run({ ...keyParams(key), succeeded_at: succeededAt, until: renew.until });
        return queued as FollowUpMode;
      }
      this.db
        .query<unknown, [Params]>(
          `UPDATE sync_schedules SET lease_holder = NULL, lease_until = NULL,
             last_success_at = COALESCE($succeeded_at, last_success_at)
           WHERE ${KEY} AND lease_holder = $holder`,
        )
        .run(params);
      return null;
    });
  }

  async queueFollowUp(key: ScheduleKey, mode: FollowUpMode, now: number): Promise<boolean> {
    return (
      this.db
        .query<unknown, [Params]>(
          `UPDATE sync_schedules SET
             follow_up_mode = CASE WHEN follow_up_mode = 'full_refresh' THEN 'full_refresh' ELSE $mode END,
             follow_up_at = COALESCE(follow_up_at, CASE WHEN lease_until > $now THEN lease_until ELSE $now END)
           WHERE ${KEY}`,
        )
        .run({ ...keyParams(key), mode, now }).changes === 1
    );
  }

  async claimFollowUp(key: ScheduleKey, at: number, lease: Lease, now: number): Promise<FollowUpMode | null> {
    const params = { ...keyParams(key), at, now };
    return this.write(() => {
      const row = this.db
        .query<ScheduleRow, [Params]>(`SELECT * FROM sync_schedules WHERE ${KEY} AND follow_up_at = $at`)
        .get(params);
      if (!row?.follow_up_mode) return null;
      if (row.lease_until !== null && row.lease_until > now) {
        this.db
          .query<unknown, [Params]>(`UPDATE sync_schedules SET follow_up_at = lease_until WHERE ${KEY}`)
          .run(keyParams(key));
        return null;
      }
      this.db
        .query<unknown, [Params]>(
          `UPDATE sync_schedules SET lease_holder = $holder, lease_until = $until, follow_up_mode = NULL, follow_up_at = NULL
           WHERE ${KEY}`,
        )
        .run({ ...keyParams(key), holder: lease.holder, until: lease.until });
      return row.follow_up_mode as FollowUpMode;
    });
  }

  async setPaused(keys: ScheduleKey[], paused: boolean, now: number): Promise<number> {
    const insert = this.db.query<unknown, [Params]>(INSERT_ROW);
    const update = this.db.query<unknown, [Params]>(
      paused
        ? `UPDATE sync_schedules SET next_due_at = NULL, follow_up_mode = NULL, follow_up_at = NULL
           WHERE ${KEY} AND (next_due_at IS NOT NULL OR follow_up_mode IS NOT NULL)`
        : `UPDATE sync_schedules SET next_due_at = $now WHERE ${KEY} AND next_due_at IS NULL`,
    );
    return this.write(() => {
      let changed = 0;
      for (const key of keys) {
        const inserted = insert.run({ ...keyParams(key), next_due_at: paused ? null : now }).changes;
        changed += inserted || update.run({ ...keyParams(key), now }).changes;
      }
      return changed;
    });
  }

  async setFrequency(
    key: ScheduleKey,
    frequency: { text: string; ms: number } | null,
    defaultMs: number,
    now: number,
  ): Promise<void> {
    this.write(() => {
      this.db.query<unknown, [Params]>(INSERT_ROW).run({ ...keyParams(key), next_due_at: null });
      this.db
        .query<unknown, [Params]>(
          `UPDATE sync_schedules SET frequency = $text, frequency_ms = $ms,
             next_due_at = CASE WHEN next_due_at IS NULL THEN NULL ELSE $next END
           WHERE ${KEY}`,
        )
        .run({
          ...keyParams(key),
          text: frequency?.text ?? null,
          ms: frequency?.ms ?? null,
          next: now + (frequency?.ms ?? defaultMs),
        });
    });
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

  async acquireDeployLock(environmentId: string, lease: Lease, now: number): Promise<boolean> {
    const taken = this.db
      .query<unknown, Params>(
        `INSERT INTO deploy_locks (environment_id, holder, lease_until) VALUES ($e, $holder, $until)
         ON CONFLICT (environment_id) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until
         WHERE deploy_locks.lease_until <= $now`,
      )
      .run({ e: environmentId, holder: lease.holder, until: lease.until, now });
    return taken.changes === 1;
  }

  async releaseDeployLock(environmentId: string, holder: string): Promise<void> {
    this.db
      .query<unknown, Params>("DELETE FROM deploy_locks WHERE environment_id = $e AND holder = $holder")
      .run({ e: environmentId, holder });
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
    followUp: r.follow_up_mode as FollowUpMode | null,
    followUpAt: r.follow_up_at,
    frequency: r.frequency !== null && r.frequency_ms !== null ? { text: r.frequency, ms: r.frequency_ms } : null,
  };
}
