import type { Database, Statement } from "bun:sqlite";
import { GroupCommit } from "@junction/bus/group-commit";
import { migrate, openDatabase } from "@junction/platform";
import { applyWatch, asOf, newestFirst } from "./lifecycle.ts";
import type { ChannelFilter, ChannelRecord, ChannelState, ChannelTokenRow, ChannelWatch } from "./records.ts";
import { SqliteManagedSlots } from "./sqlite-managed.ts";
import { type ChannelRow, EXPIRE_SQL, listSql, MIGRATIONS } from "./sqlite-schema.ts";
import type { ChannelStore } from "./store.ts";

/** Named parameters ($name in SQL, `name` here: the database is opened in strict mode). */
type Params = Record<string, string | number | null>;
type Query<R> = Statement<R, [Params]>;

const KEY = "environment_id = $environment_id AND id = $id";

/**
 * The channel registry on SQLite. Statements are prepared once per instance; the read-then-write
 * of a watch runs in one IMMEDIATE transaction, so concurrent writers queue instead of racing.
 */
export class SqliteChannelStore implements ChannelStore {
  private readonly write: <T>(fn: () => T) => T;
  private readonly q: ReturnType<typeof prepareStatements>;
  /** Listing statements, one per combination of filters, prepared on first use. */
  private readonly listQueries = new Map<string, Query<ChannelRow>>();
  /** The managed channels' schedule, in the same file. */
  readonly managed: SqliteManagedSlots;
  /** The file's group commit (shared with every store on the connection): where notification numbers are written. */
  private readonly writes: GroupCommit;

  /** Applies the channel registry's migrations to `db` (opened with `openDatabase`). */
  constructor(private readonly db: Database) {
    migrate(db, "channel", MIGRATIONS);
    const tx = db.transaction((fn: () => unknown) => fn());
    this.write = <T>(fn: () => T) => tx.immediate(fn) as T;
    this.q = prepareStatements(db);
    this.managed = new SqliteManagedSlots(db);
    this.writes = GroupCommit.forDatabase(db);
  }

  /** Opens (creating and migrating) the SQLite file at `path`. */
  static open(path: string): SqliteChannelStore {
    return new SqliteChannelStore(openDatabase(path));
  }

  async recordWatch(watch: ChannelWatch): Promise<{ applied: boolean; channel: ChannelRecord }> {
    return this.write(() => {
      const row = this.q.get.get({ environment_id: watch.environmentId, id: watch.channelId });
      const existing = row ? fromRow(row) : null;
      const next = applyWatch(existing, watch);
      if (!next) return { applied: false, channel: asOf(existing as ChannelRecord, watch.at) };
      this.q.upsert.run({ ...toRow(next) });
      return { applied: true, channel: next };
    });
  }

  async recordStop(environmentId: string, channelId: string, resourceId: string, at: number): Promise<boolean> {
    return this.q.stop.run({ environment_id: environmentId, id: channelId, resource_id: resourceId, at }).changes === 1;
  }

  async recordRenewal(environmentId: string, channelId: string, expiration: number, at: number): Promise<boolean> {
    return this.q.renew.run({ environment_id: environmentId, id: channelId, expiration, at }).changes === 1;
  }

  async recordNotification(
    environmentId: string,
    channelId: string,
    messageNumber: number,
    at: number,
  ): Promise<ChannelRecord | null> {
    // In the turn's transaction of the file (the group commit): every accepted notification of a channel in
    // the registry records its number, and on its own the update was a commit of its own. The channel as
    // it is after: the updated row, else (an older number, or none) as it stands.
    const key = { environment_id: environmentId, id: channelId };
    const row = await this.writes.add(
      () => this.q.notification.get({ ...key, message_number: messageNumber, at }) ?? this.q.get.get(key),
    );
    return row ? asOf(fromRow(row), at) : null;
  }

  async get(environmentId: string, channelId: string, now: number): Promise<ChannelRecord | null> {
    const row = this.q.get.get({ environment_id: environmentId, id: channelId });
    return row ? asOf(fromRow(row), now) : null;
  }

  async list(environmentId: string, filter: ChannelFilter, now: number): Promise<ChannelRecord[]> {
    const rows = this.listQuery(listSql(filter)).all({
      environment_id: environmentId,
      provider_config_key: filter.providerConfigKey ?? null,
      connection_id: filter.connectionId ?? null,
      now,
      expiring_before: filter.expiringBefore ?? null,
    });
    return rows.map((r) => asOf(fromRow(r), now));
  }

  async claimExpiryWarning(environmentId: string, channelId: string, at: number): Promise<boolean> {
    return this.q.claimWarning.run({ environment_id: environmentId, id: channelId, at }).changes === 1;
  }

  async releaseExpiryWarning(environmentId: string, channelId: string, at: number): Promise<void> {
    this.q.releaseWarning.run({ environment_id: environmentId, id: channelId, at });
  }

  async markExpired(environmentId: string, now: number): Promise<ChannelRecord[]> {
    return this.q.expire.all({ environment_id: environmentId, now }).map(fromRow).sort(newestFirst);
  }

  async tokenRows(
    after: { environmentId: string; id: string } | null,
    limit: number,
    unsealedOnly: boolean,
  ): Promise<ChannelTokenRow[]> {
    const rows = this.q.tokenRows.all({
      environment_id: after?.environmentId ?? "",
      id: after?.id ?? "",
      unsealed_only: unsealedOnly ? 1 : 0,
      limit,
    });
    return rows.map((r) => ({
      environmentId: r.environment_id,
      id: r.id,
      token: r.token,
      tokenDigest: r.token_digest,
    }));
  }

  async replaceToken(row: ChannelTokenRow, expected: string): Promise<boolean> {
    const params = { environment_id: row.environmentId, id: row.id, token: row.token, expected };
    return this.q.replaceToken.run({ ...params, token_digest: row.tokenDigest }).changes === 1;
  }

  async close(): Promise<void> {
    // Numbers asked for in this turn are written before the file closes.
    this.writes.flush();
    for (const s of this.listQueries.values()) s.finalize();
    this.db.close();
  }

  private listQuery(sql: string): Query<ChannelRow> {
    let stmt = this.listQueries.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<ChannelRow, [Params]>(sql);
      this.listQueries.set(sql, stmt);
    }
    return stmt;
  }
}

/** Prepares, once per store, every fixed statement. */
function prepareStatements(db: Database) {
  const p = <R = unknown>(sql: string): Query<R> => db.prepare<R, [Params]>(sql);
  return {
    get: p<ChannelRow>(`SELECT * FROM channels WHERE ${KEY}`),
    upsert: p(
      `INSERT INTO channels (environment_id, id, resource_id, provider_config_key, connection_id, resource_uri, expiration, state, created_at, updated_at, stopped_at, last_message_number, token, expiry_warned_at, token_digest)
       VALUES ($environment_id, $id, $resource_id, $provider_config_key, $connection_id, $resource_uri, $expiration, $state, $created_at, $updated_at, $stopped_at, $last_message_number, $token, $expiry_warned_at, $token_digest)
       ON CONFLICT (environment_id, id) DO UPDATE SET resource_id = excluded.resource_id,
         provider_config_key = excluded.provider_config_key, connection_id = excluded.connection_id,
         resource_uri = excluded.resource_uri, expiration = excluded.expiration, state = excluded.state,
         created_at = excluded.created_at, updated_at = excluded.updated_at, stopped_at = excluded.stopped_at,
         last_message_number = excluded.last_message_number, token = excluded.token,
         expiry_warned_at = excluded.expiry_warned_at, token_digest = excluded.token_digest`,
    ),
    tokenRows: p<{ environment_id: string; id: string; token: string; token_digest: string | null }>(
      `SELECT environment_id, id, token, token_digest FROM channels
       WHERE token IS NOT NULL AND (environment_id > $environment_id OR (environment_id = $environment_id AND id > $id))
         AND ($unsealed_only = 0 OR token_digest IS NULL)
       ORDER BY environment_id, id LIMIT $limit`,
    ),
    replaceToken: p(
      `UPDATE channels SET token = $token, token_digest = $token_digest WHERE ${KEY} AND token = $expected`,
    ),
    stop: p(
      `UPDATE channels SET state = 'stopped', stopped_at = $at, updated_at = MAX(updated_at, $at)
       WHERE ${KEY} AND resource_id = $resource_id AND state <> 'stopped' AND created_at <= $at`,
    ),
    renew: p(
      `UPDATE channels SET expiration = $expiration, expiry_warned_at = NULL, updated_at = MAX(updated_at, $at)
       WHERE ${KEY} AND state = 'active' AND created_at <= $at
         AND (expiration IS NULL OR (expiration > $at AND expiration < $expiration))`,
    ),
    notification: p<ChannelRow>(
      `UPDATE channels SET last_message_number = $message_number, updated_at = MAX(updated_at, $at)
       WHERE ${KEY} AND last_message_number < $message_number RETURNING *`,
    ),
    claimWarning: p(
      `UPDATE channels SET expiry_warned_at = $at
       WHERE ${KEY} AND state = 'active' AND expiry_warned_at IS NULL`,
    ),
    releaseWarning: p(`UPDATE channels SET expiry_warned_at = NULL WHERE ${KEY} AND expiry_warned_at = $at`),
    expire: p<ChannelRow>(EXPIRE_SQL),
  };
}

function fromRow(r: ChannelRow): ChannelRecord {
  return {
    environmentId: r.environment_id,
    id: r.id,
    resourceId: r.resource_id,
    providerConfigKey: r.provider_config_key,
    connectionId: r.connection_id,
    resourceUri: r.resource_uri,
    expiration: r.expiration,
    state: r.state as ChannelState,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    stoppedAt: r.stopped_at,
    lastMessageNumber: r.last_message_number,
    token: r.token,
    tokenDigest: r.token_digest,
    expiryWarnedAt: r.expiry_warned_at,
  };
}

function toRow(c: ChannelRecord): ChannelRow {
  return {
    environment_id: c.environmentId,
    id: c.id,
    resource_id: c.resourceId,
    provider_config_key: c.providerConfigKey,
    connection_id: c.connectionId,
    resource_uri: c.resourceUri,
    expiration: c.expiration,
    state: c.state,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    stopped_at: c.stoppedAt,
    last_message_number: c.lastMessageNumber,
    token: c.token,
    expiry_warned_at: c.expiryWarnedAt,
    token_digest: c.tokenDigest,
  };
}
