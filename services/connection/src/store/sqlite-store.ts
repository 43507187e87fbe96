import type { Database } from "bun:sqlite";
import { migrate, openDatabase } from "@junction/platform";
import { OAuthFlowDelegate } from "./oauth-flow-delegate.ts";
import { SqliteProviderDefinitions } from "./provider-definitions.ts";
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
import type { SealedCredentials } from "./secret-rewrite-store.ts";
import { SqliteSecretRewrite } from "./sqlite-secret-rewrite.ts";
import {
  connectionFromRow,
  connectionToRow,
  environmentFromRow,
  integrationFromRow,
  integrationToRow,
  secretKeyFromRow,
  secretKeyToRow,
} from "./sqlite-rows.ts";
import { type BlockHash, MatchKind, sha256Block } from "./sqlite-match-keys.ts";
import { SqliteConnectionListing } from "./sqlite-connection-listing.ts";
import { SqliteMatchIndex } from "./sqlite-match-index.ts";
import { MIGRATIONS } from "./sqlite-schema.ts";
import { prepareStatements, type Statements } from "./sqlite-statements.ts";
import {
  type ConnectionServiceStore,
  DuplicateKeyError,
  type EmailConnectionMatch,
  type EmailLookup,
  type EmailMatch,
  normalizeEmail,
  UnknownConnectionsError,
  type WatchUriMatch,
} from "./store.ts";

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
  private readonly listing: SqliteConnectionListing;
  protected readonly oauth: SqliteOAuthFlowStore;
  protected readonly definitions: SqliteProviderDefinitions;
  readonly secrets: SqliteSecretRewrite;
  /** connection_watch_keys and connection_email_keys: the matching lookups and their upkeep. */
  private readonly keys: SqliteMatchIndex;

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
    this.listing = new SqliteConnectionListing(db);
    this.oauth = new SqliteOAuthFlowStore(db);
    this.definitions = new SqliteProviderDefinitions(db);
    this.secrets = new SqliteSecretRewrite(db);
    this.keys = new SqliteMatchIndex(db, this.q, options.blockHash ?? sha256Block);
    this.keys.backfill(this.write);
  }

  /** Opens (creating and migrating) the SQLite file at `path`. */
  static open(path: string, options?: SqliteConnectionStoreOptions): SqliteConnectionStore {
    return new SqliteConnectionStore(openDatabase(path), options);
  }

  async close(): Promise<void> {
    for (const s of Object.values(this.q)) s.finalize();
    this.listing.finalize();
    this.oauth.finalize();
    this.secrets.finalize();
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

  async touchSecretKey(environmentId: string, id: string, at: number): Promise<void> {
    this.q.keyTouch.run({ environment_id: environmentId, id, at });
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

  async replaceIntegration(
    environmentId: string,
    uniqueKey: string,
    next: IntegrationRecord,
    reseal?: (moved: SealedCredentials) => string,
  ): Promise<boolean> {
    return mapDuplicate(
      () =>
        this.write(() => {
          const row = { ...integrationToRow({ ...next, environmentId }), old_key: uniqueKey };
          if (this.q.integrationReplace.run(row).changes === 0) return false;
          if (next.uniqueKey !== uniqueKey) {
            if (reseal) this.secrets.resealIntegration(environmentId, uniqueKey, reseal);
            const moved = this.keys.keyedConnections(environmentId, uniqueKey);
            const move = { environment_id: environmentId, provider_config_key: uniqueKey, new_key: next.uniqueKey };
            this.q.connectionsMove.run(move);
            for (const c of moved) {
              this.keys.removeAll(c);
              const renamed = { ...c, providerConfigKey: next.uniqueKey };
              this.keys.addAll(renamed);
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
      for (const c of this.keys.keyedConnections(environmentId, uniqueKey)) this.keys.removeAll(c);
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
            this.keys.addAll(connection);
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
          this.keys.rewrite(existing, next);
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
        this.keys.addAll(c);
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

  async connectionWebhookOverride(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<{ webhookUrlOverride: string | undefined } | null> {
    const row = this.q.connectionOverride.get({
      environment_id: environmentId,
      provider_config_key: providerConfigKey,
      connection_id: connectionId,
    });
    return row ? { webhookUrlOverride: row.webhook_url_override || undefined } : null;
  }

  async listConnections(
    environmentId: string,
    filter: ConnectionFilter,
  ): Promise<{ connections: ConnectionRecord[]; total: number }> {
    return this.listing.list(environmentId, filter);
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
      this.keys.removeAll(existing);
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
      if (patch.connectionConfig !== undefined) this.keys.rewrite(existing, next);
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
        this.keys.rewrite(existing, next);
        written.set(id, next);
      }
      return connectionIds.map((id) => written.get(id) as ConnectionRecord);
    });
  }

  // Matching lookups (spec: Webhook-to-connection matching), in sqlite-match-index.ts.

  async findByWatchUri(environmentId: string, providerConfigKey: string, uri: string): Promise<string[]> {
    return this.keys.matchByWatchUri(environmentId, providerConfigKey, uri).connectionIds;
  }

  async matchByWatchUri(environmentId: string, providerConfigKey: string, uri: string): Promise<WatchUriMatch> {
    return this.keys.matchByWatchUri(environmentId, providerConfigKey, uri);
  }

  async findByEmailHash(environmentId: string, providerConfigKey: string, hash: string): Promise<string[]> {
    return this.keys.findEmailKind(MatchKind.emailAddressHash, environmentId, providerConfigKey, hash);
  }

  async findByMetadataEmailAddress(environmentId: string, providerConfigKey: string, email: string): Promise<string[]> {
    const value = normalizeEmail(email);
    return value === null
      ? []
      : this.keys.findEmailKind(MatchKind.metadataEmailAddress, environmentId, providerConfigKey, value);
  }

  async findByMetadataEmail(environmentId: string, providerConfigKey: string, email: string): Promise<string[]> {
    const value = normalizeEmail(email);
    return value === null
      ? []
      : this.keys.findEmailKind(MatchKind.metadataEmail, environmentId, providerConfigKey, value);
  }

  async findByEmail(envId: string, key: string, email: string, options: EmailLookup = {}): Promise<EmailMatch | null> {
    const match = this.keys.matchByEmail(envId, key, email, options);
    return match && { tier: match.tier, connectionIds: match.connectionIds };
  }

  async matchByEmail(
    envId: string,
    key: string,
    email: string,
    options: EmailLookup = {},
  ): Promise<EmailConnectionMatch | null> {
    return this.keys.matchByEmail(envId, key, email, options);
  }

  private getRecord(environmentId: string, providerConfigKey: string, connectionId: string): ConnectionRecord | null {
    const row = this.q.connectionGet.get({
      environment_id: environmentId,
      provider_config_key: providerConfigKey,
      connection_id: connectionId,
    });
    return row ? connectionFromRow(row) : null;
  }
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
