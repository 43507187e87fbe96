import type { Database } from "bun:sqlite";
import { migrate, openDatabase } from "@junction/platform";
import type {
  ConnectionFilter,
  ConnectionPatch,
  ConnectionRecord,
  ConnectSessionRecord,
  EnvironmentRecord,
  IntegrationRecord,
  MetadataMode,
  OAuthStateRecord,
  SecretKeyRecord,
} from "./records.ts";
import { SqliteOAuthFlowStore } from "./sqlite-oauth-store.ts";
import {
  type ConnectionRow,
  connectionFromRow,
  connectionToRow,
  environmentFromRow,
  integrationFromRow,
  integrationToRow,
  secretKeyFromRow,
  secretKeyToRow,
} from "./sqlite-rows.ts";
import { type LookupName, MIGRATIONS } from "./sqlite-schema.ts";
import {
  CONNECTION_COLUMNS,
  type Params,
  prepareStatements,
  type Query,
  type Statements,
} from "./sqlite-statements.ts";
import {
  type ConnectionServiceStore,
  type ConsumedState,
  DuplicateKeyError,
  normalizeEmail,
  UnknownConnectionsError,
  watchUris,
} from "./store.ts";

/**
 * The connection service's store on SQLite. Statements are prepared once per instance; every write
 * that touches more than one row runs in one IMMEDIATE transaction, so readers never see half of it
 * and concurrent writers in other processes queue on the file lock instead of failing mid-way.
 */
export class SqliteConnectionStore implements ConnectionServiceStore {
  private readonly write: <T>(fn: () => T) => T;
  private readonly q: Statements;
  /** Listing statements, one per combination of filters, prepared on first use. */
  private readonly listQueries = new Map<string, Query<unknown>>();
  private readonly oauth: SqliteOAuthFlowStore;

  /** Applies the connection service's migrations to `db` (opened with `openDatabase`). */
  constructor(private readonly db: Database) {
    migrate(db, "connection", MIGRATIONS);
    const tx = db.transaction((fn: () => unknown) => fn());
    this.write = <T>(fn: () => T) => tx.immediate(fn) as T;
    this.q = prepareStatements(db);
    this.oauth = new SqliteOAuthFlowStore(db);
  }

  /** Opens (creating and migrating) the SQLite file at `path`. */
  static open(path: string): SqliteConnectionStore {
    return new SqliteConnectionStore(openDatabase(path));
  }

  async close(): Promise<void> {
    const { lookup, ...fixed } = this.q;
    for (const s of [...Object.values(fixed), ...Object.values(lookup), ...this.listQueries.values()]) s.finalize();
    this.oauth.finalize();
    this.db.close();
  }

  // Environment and secret keys.

  async getOrCreateEnvironment(create: () => EnvironmentRecord): Promise<EnvironmentRecord> {
    const found = this.q.environmentFirst.get({});
    if (found) return environmentFromRow(found);
    // Re-read under the write lock: another process may have created it since.
    return this.write(() => {
      const raced = this.q.environmentFirst.get({});
      if (raced) return environmentFromRow(raced);
      const env = create();
      this.q.environmentInsert.run({ id: env.id, name: env.name, created_at: env.createdAt });
      return env;
    });
  }

  async insertSecretKey(key: SecretKeyRecord): Promise<void> {
    mapDuplicate(() => this.q.keyInsert.run({ ...secretKeyToRow(key) }), `secret key ${key.id}`);
  }

  async listSecretKeys(environmentId: string): Promise<SecretKeyRecord[]> {
    return this.q.keyList.all({ environment_id: environmentId }).map(secretKeyFromRow);
  }

  async revokeSecretKey(environmentId: string, id: string, at: number): Promise<SecretKeyRecord | null> {
    const row = this.q.keyRevoke.get({ environment_id: environmentId, id, at });
    return row ? secretKeyFromRow(row) : null;
  }

  // Integrations.

  async insertIntegration(integration: IntegrationRecord): Promise<void> {
    mapDuplicate(
      () => this.q.integrationInsert.run({ ...integrationToRow(integration) }),
      `integration ${integration.uniqueKey}`,
    );
  }

  async getIntegration(environmentId: string, uniqueKey: string): Promise<IntegrationRecord | null> {
    const row = this.q.integrationGet.get({ environment_id: environmentId, unique_key: uniqueKey });
    return row ? integrationFromRow(row) : null;
  }

  async listIntegrations(environmentId: string): Promise<IntegrationRecord[]> {
    return this.q.integrationList.all({ environment_id: environmentId }).map(integrationFromRow);
  }

  async replaceIntegration(environmentId: string, uniqueKey: string, next: IntegrationRecord): Promise<boolean> {
    return mapDuplicate(
      () =>
        this.write(() => {
          const row = { ...integrationToRow({ ...next, environmentId }), old_key: uniqueKey };
          if (this.q.integrationReplace.run(row).changes === 0) return false;
          if (next.uniqueKey !== uniqueKey) {
            const move = { environment_id: environmentId, provider_config_key: uniqueKey, new_key: next.uniqueKey };
            this.q.connectionsMove.run(move);
            this.q.watchUrisMove.run(move);
          }
          return true;
        }),
      `integration ${next.uniqueKey}`,
    );
  }

  async deleteIntegration(environmentId: string, uniqueKey: string): Promise<number> {
    const key = { environment_id: environmentId, provider_config_key: uniqueKey };
    return this.write(() => {
      this.q.watchUrisDeleteAll.run(key);
      const deleted = this.q.connectionsDeleteAll.run(key).changes;
      this.q.integrationDelete.run({ environment_id: environmentId, unique_key: uniqueKey });
      return deleted;
    });
  }

  // Connections.

  async upsertConnection(connection: ConnectionRecord): Promise<{ created: boolean; connection: ConnectionRecord }> {
    return mapDuplicate(
      () =>
        this.write(() => {
          const existing = this.getRecord(
            connection.environmentId,
            connection.providerConfigKey,
            connection.connectionId,
          );
          if (!existing) {
            this.q.connectionInsert.run({ ...connectionToRow(connection) });
            this.writeWatchUris(connection);
            return { created: true, connection };
          }
          const next: ConnectionRecord = {
            ...existing,
            credentialsEnc: connection.credentialsEnc,
            credentialsExpiresAt: connection.credentialsExpiresAt,
            connectionConfig: { ...existing.connectionConfig, ...connection.connectionConfig },
            endUser: connection.endUser ?? existing.endUser,
            updatedAt: connection.updatedAt,
          };
          this.q.connectionUpdate.run({ ...connectionToRow(next) });
          return { created: false, connection: next };
        }),
      `connection ${connection.connectionId}`,
    );
  }

  /**
   * Inserts many new connections in one transaction, with the lookup columns and watch-URI rows
   * `upsertConnection` writes. For seeding benchmarks (10⁶ connections in seconds rather than
   * minutes): every id must be new, or the whole batch fails. Not part of ConnectionServiceStore.
   */
  async insertConnectionsBulk(connections: readonly ConnectionRecord[]): Promise<void> {
    this.write(() => {
      for (const c of connections) {
        this.q.connectionInsert.run({ ...connectionToRow(c) });
        this.writeWatchUris(c);
      }
    });
  }

  async getConnection(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<ConnectionRecord | null> {
    return this.getRecord(environmentId, providerConfigKey, connectionId);
  }

  async listConnections(
    environmentId: string,
    filter: ConnectionFilter,
  ): Promise<{ connections: ConnectionRecord[]; total: number }> {
    // Empty strings count as absent, as proto3 sends unset strings.
    const where = ["environment_id = $environment_id"];
    const params: Params = { environment_id: environmentId };
    if (filter.providerConfigKey) {
      where.push("provider_config_key = $provider_config_key");
      params.provider_config_key = filter.providerConfigKey;
    }
    if (filter.connectionId) {
      where.push("connection_id = $connection_id");
      params.connection_id = filter.connectionId;
    }
    if (filter.search) {
      where.push("connection_id LIKE $search ESCAPE '\\'");
      params.search = `%${filter.search.replace(/[\\%_]/g, "\\$&")}%`;
    }
    if (filter.endUserId) {
      where.push("end_user_id = $end_user_id");
      params.end_user_id = filter.endUserId;
    }
    const clause = where.join(" AND ");
    const total =
      this.listQuery<{ total: number }>(`SELECT COUNT(*) AS total FROM connections WHERE ${clause}`).get(params)
        ?.total ?? 0;
    const rows = this.listQuery<ConnectionRow>(
      `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE ${clause} ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $offset`,
    ).all({ ...params, limit: filter.limit, offset: filter.offset });
    return { connections: rows.map(connectionFromRow), total };
  }

  async countConnections(environmentId: string, providerConfigKey: string): Promise<number> {
    return (
      this.q.connectionCount.get({ environment_id: environmentId, provider_config_key: providerConfigKey })?.n ?? 0
    );
  }

  async deleteConnection(environmentId: string, providerConfigKey: string, connectionId: string): Promise<boolean> {
    return this.write(() => {
      const existing = this.getRecord(environmentId, providerConfigKey, connectionId);
      if (!existing) return false;
      this.q.watchUrisDelete.run({ connection_pk: existing.id });
      this.q.connectionDelete.run({ id: existing.id });
      return true;
    });
  }

  async patchConnection(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string,
    patch: ConnectionPatch,
    at: number,
  ): Promise<ConnectionRecord | null> {
    return this.write(() => {
      const existing = this.getRecord(environmentId, providerConfigKey, connectionId);
      if (!existing) return null;
      const next: ConnectionRecord = { ...existing, ...definedFields(patch), updatedAt: at };
      this.q.connectionUpdate.run({ ...connectionToRow(next) });
      return next;
    });
  }

  async writeMetadata(
    environmentId: string,
    providerConfigKey: string,
    connectionIds: string[],
    metadata: Record<string, unknown>,
    mode: MetadataMode,
    at: number,
  ): Promise<ConnectionRecord[]> {
    return this.write(() => {
      // All or nothing: look every id up before writing any.
      const found = new Map<string, ConnectionRecord | null>();
      for (const id of connectionIds) {
        if (!found.has(id)) found.set(id, this.getRecord(environmentId, providerConfigKey, id));
      }
      const missing = [...found].filter(([, r]) => r === null).map(([id]) => id);
      if (missing.length > 0) throw new UnknownConnectionsError(missing);
      const written = new Map<string, ConnectionRecord>();
      for (const [id, existing] of found) {
        if (!existing) continue;
        const next: ConnectionRecord = {
          ...existing,
          metadata: mode === "set" ? { ...metadata } : { ...existing.metadata, ...metadata },
          updatedAt: at,
        };
        this.q.connectionUpdate.run({ ...connectionToRow(next) });
        this.q.watchUrisDelete.run({ connection_pk: next.id });
        this.writeWatchUris(next);
        written.set(id, next);
      }
      return connectionIds.map((id) => written.get(id) as ConnectionRecord);
    });
  }

  // Matching lookups (spec: Webhook-to-connection matching). Each is one index search.

  async findByWatchUri(environmentId: string, providerConfigKey: string, uri: string): Promise<string[]> {
    return this.lookup("watchUri", environmentId, providerConfigKey, uri);
  }

  async findByEmailHash(environmentId: string, providerConfigKey: string, hash: string): Promise<string[]> {
    return this.lookup("emailHash", environmentId, providerConfigKey, hash);
  }

  async findByMetadataEmailAddress(environmentId: string, providerConfigKey: string, email: string): Promise<string[]> {
    const value = normalizeEmail(email);
    return value === null ? [] : this.lookup("metadataEmailAddress", environmentId, providerConfigKey, value);
  }

  async findByMetadataEmail(environmentId: string, providerConfigKey: string, email: string): Promise<string[]> {
    const value = normalizeEmail(email);
    return value === null ? [] : this.lookup("metadataEmail", environmentId, providerConfigKey, value);
  }

  // Connect sessions, authorization states and leases (sqlite-oauth-store.ts).

  insertConnectSession(session: ConnectSessionRecord): Promise<void> {
    return this.oauth.insertConnectSession(session);
  }

  getConnectSessionByTokenHash(tokenHash: string): Promise<ConnectSessionRecord | null> {
    return this.oauth.getConnectSessionByTokenHash(tokenHash);
  }

  getConnectSession(id: string): Promise<ConnectSessionRecord | null> {
    return this.oauth.getConnectSession(id);
  }

  insertOAuthState(state: OAuthStateRecord): Promise<void> {
    return this.oauth.insertOAuthState(state);
  }

  consumeOAuthState(stateHash: string, at: number): Promise<ConsumedState | null> {
    return this.oauth.consumeOAuthState(stateHash, at);
  }

  purgeOAuthFlow(before: number): Promise<void> {
    return this.oauth.purgeOAuthFlow(before);
  }

  acquireLease(key: string, holder: string, now: number, expiresAt: number): Promise<boolean> {
    return this.oauth.acquireLease(key, holder, now, expiresAt);
  }

  releaseLease(key: string, holder: string): Promise<void> {
    return this.oauth.releaseLease(key, holder);
  }

  private lookup(name: LookupName, environmentId: string, providerConfigKey: string, value: string): string[] {
    return this.q.lookup[name]
      .all({ environment_id: environmentId, provider_config_key: providerConfigKey, value })
      .map((r) => r.connection_id)
      .sort();
  }

  private getRecord(environmentId: string, providerConfigKey: string, connectionId: string): ConnectionRecord | null {
    const row = this.q.connectionGet.get({
      environment_id: environmentId,
      provider_config_key: providerConfigKey,
      connection_id: connectionId,
    });
    return row ? connectionFromRow(row) : null;
  }

  /** Inserts the watch-URI rows of `c`; its old rows must be gone (new connection, or deleted first). */
  private writeWatchUris(c: ConnectionRecord): void {
    for (const uri of watchUris(c.metadata)) {
      this.q.watchUriInsert.run({
        connection_pk: c.id,
        environment_id: c.environmentId,
        provider_config_key: c.providerConfigKey,
        uri,
        connection_id: c.connectionId,
      });
    }
  }

  private listQuery<R>(sql: string): Query<R> {
    let stmt = this.listQueries.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<unknown, [Params]>(sql);
      this.listQueries.set(sql, stmt);
    }
    return stmt as Query<R>;
  }
}

/** The fields of a patch that are present (an absent field leaves the stored value as it is). */
function definedFields(patch: ConnectionPatch): ConnectionPatch {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as ConnectionPatch;
}

function mapDuplicate<T>(fn: () => T, what: string): T {
  try {
    return fn();
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
      throw new DuplicateKeyError(`${what} already exists`, { cause: e });
    }
    throw e;
  }
}
