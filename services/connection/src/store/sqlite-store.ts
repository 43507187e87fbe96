import type { Database } from "bun:sqlite";
import { migrate, openDatabase } from "@junction/platform";
import { emailAddressHash, nangoEmailAddressHash } from "../email-hash.ts";
import { OAuthFlowDelegate } from "./oauth-flow-delegate.ts";
import { connectionLookupKeys } from "./lookup-keys.ts";
import type {
  ConnectionFilter,
  ConnectionPatch,
  ConnectionRecord,
  EnvironmentRecord,
  IntegrationRecord,
  MetadataMode,
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
import {
  BLOCK_SIZE,
  type BlockHash,
  blockOf,
  emailBlockOf,
  MatchKind,
  type MatchKey,
  matchKeysOf,
  sha256Block,
} from "./sqlite-match-keys.ts";
import { MIGRATIONS } from "./sqlite-schema.ts";
import {
  CONNECTION_COLUMNS,
  type KeyedConnectionRow,
  type Params,
  prepareStatements,
  type Query,
  type Statements,
} from "./sqlite-statements.ts";
import {
  type ConnectionServiceStore,
  DuplicateKeyError,
  type EmailLookup,
  type EmailMatch,
  type EmailTier,
  normalizeEmail,
  UnknownConnectionsError,
} from "./store.ts";

/** What a connection's match keys derive from. */
type Keyed = Pick<
  ConnectionRecord,
  "environmentId" | "providerConfigKey" | "connectionId" | "connectionConfig" | "metadata"
>;

/** The rule-2 tier of each kind of connection_email_keys. */
const TIERS: Record<number, EmailTier> = {
  [MatchKind.emailAddressHash]: "emailAddressHash",
  [MatchKind.metadataEmailAddress]: "metadataEmailAddress",
  [MatchKind.metadataEmail]: "metadataEmail",
};

export interface SqliteConnectionStoreOptions {
  /** The hash of match keys to blocks (sqlite-match-keys.ts). For tests only: it is stored. */
  blockHash?: BlockHash;
}

/**
 * The connection service's store on SQLite. Statements are prepared once per instance; every write
 * that touches more than one row runs in one IMMEDIATE transaction, so readers never see half of it
 * and concurrent writers in other processes queue on the file lock instead of failing mid-way.
 */
export class SqliteConnectionStore extends OAuthFlowDelegate implements ConnectionServiceStore {
  private readonly write: <T>(fn: () => T) => T;
  private readonly q: Statements;
  /** Listing statements, one per combination of filters, prepared on first use. */
  private readonly listQueries = new Map<string, Query<unknown>>();
  protected readonly oauth: SqliteOAuthFlowStore;
  private readonly blockHash: BlockHash;

  /** Applies the connection service's migrations to `db` (opened with `openDatabase`). */
  constructor(
    private readonly db: Database,
    options: SqliteConnectionStoreOptions = {},
  ) {
    super();
    migrate(db, "connection", MIGRATIONS);
    const tx = db.transaction((fn: () => unknown) => fn());
    this.write = <T>(fn: () => T) => tx.immediate(fn) as T;
    this.q = prepareStatements(db);
    this.oauth = new SqliteOAuthFlowStore(db);
    this.blockHash = options.blockHash ?? sha256Block;
    this.backfillMatchKeys();
  }

  /** Opens (creating and migrating) the SQLite file at `path`. */
  static open(path: string, options?: SqliteConnectionStoreOptions): SqliteConnectionStore {
    return new SqliteConnectionStore(openDatabase(path), options);
  }

  async close(): Promise<void> {
    for (const s of [...Object.values(this.q), ...this.listQueries.values()]) s.finalize();
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

  async markImportedEmailHashes(environmentId: string, uniqueKey: string): Promise<void> {
    this.write(() =>
      this.q.integrationMarkImportedEmailHashes.run({ environment_id: environmentId, unique_key: uniqueKey }),
    );
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
            const moved = this.keyedConnections(environmentId, uniqueKey);
            const move = { environment_id: environmentId, provider_config_key: uniqueKey, new_key: next.uniqueKey };
            this.q.connectionsMove.run(move);
            for (const c of moved) {
              this.removeMatchKeys(c, this.matchKeys(c));
              const renamed = { ...c, providerConfigKey: next.uniqueKey };
              this.addMatchKeys(renamed, this.matchKeys(renamed));
            }
          }
          return true;
        }),
      `integration ${next.uniqueKey}`,
    );
  }

  async deleteIntegration(environmentId: string, uniqueKey: string): Promise<number> {
    const key = { environment_id: environmentId, provider_config_key: uniqueKey };
    return this.write(() => {
      for (const c of this.keyedConnections(environmentId, uniqueKey)) this.removeMatchKeys(c, this.matchKeys(c));
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
            this.addMatchKeys(connection, this.matchKeys(connection));
            return { created: true, connection };
          }
          const next: ConnectionRecord = {
            ...existing,
            credentialsEnc: connection.credentialsEnc,
            credentialsExpiresAt: connection.credentialsExpiresAt,
            connectionConfig: { ...existing.connectionConfig, ...connection.connectionConfig },
            endUser: connection.endUser ?? existing.endUser,
            tags: Object.keys(connection.tags).length > 0 ? connection.tags : existing.tags,
            ...(connection.webhookUrlOverride ? { webhookUrlOverride: connection.webhookUrlOverride } : {}),
            updatedAt: connection.updatedAt,
          };
          this.q.connectionUpdate.run({ ...connectionToRow(next) });
          this.rewriteMatchKeys(existing, next);
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
        this.addMatchKeys(c, this.matchKeys(c));
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
    if (filter.providerConfigKeys?.length) {
      // One parameter per key: the statement text depends only on how many there are.
      const names = filter.providerConfigKeys.map((_, i) => `$provider_config_key_${i}`);
      where.push(`provider_config_key IN (${names.join(", ")})`);
      filter.providerConfigKeys.forEach((key, i) => {
        params[`provider_config_key_${i}`] = key;
      });
    }
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
    // Rare filters on the end user's JSON profile: read from the rows the indexed filters leave.
    for (const [value, path, name] of [
      [filter.endUserEmail, "$.email", "end_user_email"],
      [filter.endUserDisplayName, "$.display_name", "end_user_display_name"],
      [filter.endUserOrganizationId, "$.organization.id", "end_user_organization_id"],
    ] as const) {
      if (!value) continue;
      where.push(`json_extract(end_user, '${path}') = $${name}`);
      params[name] = value;
    }
    for (const [i, [key, value]] of Object.entries(filter.tags ?? {}).entries()) {
      where.push(`EXISTS (SELECT 1 FROM json_each(tags) WHERE key = $tag_key_${i} AND value = $tag_value_${i})`);
      params[`tag_key_${i}`] = key;
      params[`tag_value_${i}`] = value;
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
      this.removeMatchKeys(existing, this.matchKeys(existing));
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
      const { webhookUrlOverride, ...fields } = patch;
      const next: ConnectionRecord = { ...existing, ...definedFields(fields), updatedAt: at };
      if (webhookUrlOverride === null) delete next.webhookUrlOverride;
      else if (webhookUrlOverride !== undefined) next.webhookUrlOverride = webhookUrlOverride;
      this.q.connectionUpdate.run({ ...connectionToRow(next) });
      if (patch.connectionConfig !== undefined) this.rewriteMatchKeys(existing, next);
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
        this.rewriteMatchKeys(existing, next);
        written.set(id, next);
      }
      return connectionIds.map((id) => written.get(id) as ConnectionRecord);
    });
  }

  // Matching lookups (spec: Webhook-to-connection matching). Each is one search of one block of
  // connection_watch_keys or connection_email_keys (sqlite-match-keys.ts).

  async findByWatchUri(environmentId: string, providerConfigKey: string, uri: string): Promise<string[]> {
    return this.lookup(MatchKind.watchUri, environmentId, providerConfigKey, uri);
  }

  async findByEmailHash(environmentId: string, providerConfigKey: string, hash: string): Promise<string[]> {
    return this.lookup(MatchKind.emailAddressHash, environmentId, providerConfigKey, hash);
  }

  async findByMetadataEmailAddress(environmentId: string, providerConfigKey: string, email: string): Promise<string[]> {
    const value = normalizeEmail(email);
    return value === null ? [] : this.lookup(MatchKind.metadataEmailAddress, environmentId, providerConfigKey, value);
  }

  async findByMetadataEmail(environmentId: string, providerConfigKey: string, email: string): Promise<string[]> {
    const value = normalizeEmail(email);
    return value === null ? [] : this.lookup(MatchKind.metadataEmail, environmentId, providerConfigKey, value);
  }

  async findByEmail(envId: string, key: string, email: string, options: EmailLookup = {}): Promise<EmailMatch | null> {
    const value = normalizeEmail(email);
    if (value === null) return null;
    // The three tiers of an email share one block: one search finds them all; the lowest kind decides.
    const hash = emailAddressHash(value);
    const first = emailBlockOf(this.blockHash, envId, key, hash);
    const params: Params = {
      first,
      last: first + BLOCK_SIZE - 1,
      hash,
      email: value,
      environment_id: envId,
      provider_config_key: key,
    };
    let rows: [number, string][];
    if (options.nangoEmailHashes) {
      // A hash imported from Nango, under its own formula, is in its own block.
      const nangoHash = nangoEmailAddressHash(value);
      const nangoFirst = emailBlockOf(this.blockHash, envId, key, nangoHash);
      rows = this.q.lookupEmailWithNango.values({
        ...params,
        nango_first: nangoFirst,
        nango_last: nangoFirst + BLOCK_SIZE - 1,
        nango_hash: nangoHash,
      }) as [number, string][];
    } else rows = this.q.lookupEmail.values(params) as [number, string][];
    if (rows.length === 0) return null;
    let kind = rows[0]?.[0] as number;
    for (const row of rows) if (row[0] < kind) kind = row[0];
    const connectionIds: string[] = [];
    for (const row of rows) if (row[0] === kind) connectionIds.push(row[1]);
    return { tier: TIERS[kind] as EmailTier, connectionIds: connectionIds.sort() };
  }

  private lookup(kind: MatchKind, environmentId: string, providerConfigKey: string, value: string): string[] {
    const first = blockOf(this.blockHash, environmentId, providerConfigKey, kind, value);
    const params = {
      first,
      last: first + BLOCK_SIZE - 1,
      value,
      environment_id: environmentId,
      provider_config_key: providerConfigKey,
    };
    const rows = (
      kind === MatchKind.watchUri
        ? this.q.lookupWatchUri.values(params)
        : this.q.lookupEmailKind.values({ ...params, kind })
    ) as [string][];
    const ids: string[] = [];
    for (const row of rows) ids.push(row[0]);
    return ids.sort();
  }

  private getRecord(environmentId: string, providerConfigKey: string, connectionId: string): ConnectionRecord | null {
    const row = this.q.connectionGet.get({
      environment_id: environmentId,
      provider_config_key: providerConfigKey,
      connection_id: connectionId,
    });
    return row ? connectionFromRow(row) : null;
  }

  // connection_watch_keys and connection_email_keys (sqlite-match-keys.ts), written in the
  // transaction of every write that changes what the keys derive from: metadata,
  // connection_config, the integration's key.

  private matchKeys(c: Keyed): MatchKey[] {
    return matchKeysOf(
      this.blockHash,
      c.environmentId,
      c.providerConfigKey,
      connectionLookupKeys({ connectionConfig: c.connectionConfig, metadata: c.metadata, endUser: null }),
    );
  }

  /** Stores `keys` of `c`, each at the first free slot of its block. */
  private addMatchKeys(c: Keyed, keys: readonly MatchKey[]): void {
    for (const key of keys) {
      const watch = key.kind === MatchKind.watchUri;
      const insert = (slot: number) => {
        const row = {
          slot,
          environment_id: c.environmentId,
          provider_config_key: c.providerConfigKey,
          value: key.value,
          connection_id: c.connectionId,
        };
        const { changes } = watch
          ? this.q.watchKeyInsert.run(row)
          : this.q.emailKeyInsert.run({ ...row, kind: key.kind });
        return changes === 1;
      };
      // Most blocks hold one row: try the first slot, and only when it is taken look for a free one.
      if (insert(key.first)) continue;
      const last = key.first + BLOCK_SIZE - 1;
      const taken = (watch ? this.q.watchKeySlots : this.q.emailKeySlots).values({ first: key.first, last }) as [
        number,
      ][];
      let slot = key.first;
      for (const [s] of taken) {
        if (s !== slot) break;
        slot++;
      }
      if (slot > last || !insert(slot)) throw new Error(`no free slot for a lookup key in block ${key.first}`);
    }
  }

  private removeMatchKeys(c: Keyed, keys: readonly MatchKey[]): void {
    for (const key of keys) {
      const row = {
        first: key.first,
        last: key.first + BLOCK_SIZE - 1,
        value: key.value,
        connection_id: c.connectionId,
        environment_id: c.environmentId,
        provider_config_key: c.providerConfigKey,
      };
      if (key.kind === MatchKind.watchUri) this.q.watchKeyDelete.run(row);
      else this.q.emailKeyDelete.run({ ...row, kind: key.kind });
    }
  }

  /** Replaces the keys of `before` by those of `after` (the same connection), touching only the changed ones. */
  private rewriteMatchKeys(before: Keyed, after: Keyed): void {
    const old = this.matchKeys(before);
    const next = this.matchKeys(after);
    const id = (k: MatchKey) => `${k.kind}:${k.value}`;
    const oldIds = new Set(old.map(id));
    const nextIds = new Set(next.map(id));
    this.removeMatchKeys(
      before,
      old.filter((k) => !nextIds.has(id(k))),
    );
    this.addMatchKeys(
      after,
      next.filter((k) => !oldIds.has(id(k))),
    );
  }

  /** The connections of an integration, as far as their match keys go. */
  private keyedConnections(environmentId: string, providerConfigKey: string): Keyed[] {
    return this.q.connectionsKeyed
      .all({ environment_id: environmentId, provider_config_key: providerConfigKey })
      .map(keyedFromRow);
  }

  /**
   * Fills the match-key tables from the existing connections once, after the migration that made
   * it (its hashes cannot be computed in SQL), in one transaction; another process that raced here
   * finds the work done.
   */
  private backfillMatchKeys(): void {
    const pending = () =>
      this.db
        .query<{ n: number }, []>(
          "SELECT COUNT(*) AS n FROM sqlite_schema WHERE type = 'table' AND name = 'connection_match_keys_backfill'",
        )
        .get()?.n === 1;
    if (!pending()) return;
    this.write(() => {
      if (!pending()) return;
      for (const row of this.q.connectionsKeyedAll.iterate({})) {
        const c = keyedFromRow(row);
        this.addMatchKeys(c, this.matchKeys(c));
      }
      this.db.exec("DROP TABLE connection_match_keys_backfill");
    });
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

function keyedFromRow(r: KeyedConnectionRow): Keyed {
  return {
    environmentId: r.environment_id,
    providerConfigKey: r.provider_config_key,
    connectionId: r.connection_id,
    connectionConfig: JSON.parse(r.connection_config) as Record<string, unknown>,
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  };
}

/** The fields of a patch that are present (an absent field leaves the stored value as it is). */
function definedFields<P extends object>(patch: P): P {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as P;
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
