import { migrateWatchUris } from "./mongo-watch-uris.ts";
import { type ClientSession, type Collection, type Db, type Filter, MongoClient } from "mongodb";
import { isDuplicateKey, mapDuplicate } from "./mongo-duplicate.ts";
import { OAuthFlowDelegate } from "./oauth-flow-delegate.ts";
import { MongoProviderDefinitions } from "./provider-definitions.ts";
import {
  type ConnectionDocument,
  connectionFromDocument,
  connectionListQuery,
  connectionToDocument,
  type EnvironmentDocument,
  environmentFromDocument,
  environmentToDocument,
  type IntegrationDocument,
  integrationFromDocument,
  integrationToDocument,
  metadataUpdate,
  patchUpdate,
  reauthorizationUpdate,
  type SecretKeyDocument,
  secretKeyFromDocument,
  secretKeyToDocument,
} from "./mongo-documents.ts";
import { MongoMatchLookups } from "./mongo-match-lookups.ts";
import { MongoOAuthFlowStore } from "./mongo-oauth-store.ts";
import { MongoSecretRewrite } from "./mongo-secret-rewrite.ts";
import type { SealedCredentials } from "./secret-rewrite-store.ts";
import type {
  ConnectionFilter,
  ConnectionPatch,
  ConnectionRecord,
  EnvironmentRecord,
  IntegrationRecord,
  MetadataMode,
  SecretKeyRecord,
} from "./records.ts";
import {
  type ConnectionServiceStore,
  DuplicateKeyError,
  type EmailLookup,
  type EmailMatch,
  UnknownConnectionsError,
  type WatchUriMatch,
} from "./store.ts";

const NEWEST_FIRST = { createdAt: -1, _id: -1 } as const;

/**
 * The connection service's store on MongoDB. Multi-document writes run in a transaction when the
 * server supports them (replica set or sharded cluster). On a standalone server they cannot: each
 * document's write is still atomic, and every write that must be all-or-nothing checks first, but
 * a concurrent writer can slip between the check and the write, and readers may see a multi-document
 * write half done. Run MongoDB as a replica set (a single node is enough) in production.
 */
export class MongoConnectionStore extends OAuthFlowDelegate implements ConnectionServiceStore {
  private readonly environments: Collection<EnvironmentDocument>;
  private readonly secretKeys: Collection<SecretKeyDocument>;
  private readonly integrations: Collection<IntegrationDocument>;
  private readonly connections: Collection<ConnectionDocument>;
  protected readonly oauth: MongoOAuthFlowStore;
  protected readonly definitions: MongoProviderDefinitions;
  readonly secrets: MongoSecretRewrite;
  private readonly matching: MongoMatchLookups;

  private constructor(
    private readonly client: MongoClient,
    db: Db,
    /** Whether the server runs multi-document transactions. */
    readonly transactions: boolean,
  ) {
    super();
    this.environments = db.collection("environments");
    this.secretKeys = db.collection("secret_keys");
    this.integrations = db.collection("integrations");
    this.connections = db.collection("connections");
    this.oauth = new MongoOAuthFlowStore(db);
    this.definitions = new MongoProviderDefinitions(db);
    this.secrets = new MongoSecretRewrite(this.connections, this.integrations);
    this.matching = new MongoMatchLookups(this.connections);
  }

  /** Connects to `url`, uses database `dbName` and creates the indexes the store relies on. */
  static async connect(url: string, dbName: string): Promise<MongoConnectionStore> {
    const client = new MongoClient(url);
    try {
      await client.connect();
      const db = client.db(dbName);
      const hello = await db.admin().command({ hello: 1 });
      const transactions = typeof hello.setName === "string" || hello.msg === "isdbgrid";
      const store = new MongoConnectionStore(client, db, transactions);
      await migrateWatchUris(store.connections);
      await store.createIndexes();
      return store;
    } catch (e) {
      await client.close();
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async createIndexes(): Promise<void> {
    const scope = { environmentId: 1, providerConfigKey: 1 } as const;
    await Promise.all([
      this.oauth.createIndexes(),
      this.environments.createIndex({ singleton: 1 }, { unique: true, name: "one_environment" }),
      this.secretKeys.createIndex({ environmentId: 1, createdAt: 1 }, { name: "by_environment" }),
      this.integrations.createIndex({ environmentId: 1, uniqueKey: 1 }, { unique: true, name: "unique_key" }),
      this.connections.createIndexes([
        { key: { ...scope, connectionId: 1 }, unique: true, name: "connection_id" },
        { key: { environmentId: 1, createdAt: -1, _id: -1 }, name: "newest" },
        { key: { ...scope, createdAt: -1, _id: -1 }, name: "newest_by_integration" },
        { key: { environmentId: 1, endUserId: 1, createdAt: -1, _id: -1 }, name: "by_end_user" },
        { key: { environmentId: 1, tagPairs: 1 }, name: "by_tag" },
        // spec: Webhook-to-connection matching, rule 1 (multikey) and rule 2's three tiers.
        { key: { ...scope, "lookup.watchUris": 1 }, name: "by_watch_uris" },
        { key: { ...scope, "connection_config.emailAddressHash": 1 }, name: "by_email_hash" },
        { key: { ...scope, "lookup.emailAddress": 1 }, name: "by_email_address_normalized" },
        { key: { ...scope, "lookup.email": 1 }, name: "by_email_normalized" },
        // Exact-match lookups on the raw values, for ad-hoc queries and tools that do not know lookup.*.
        { key: { ...scope, "metadata.emailAddress": 1 }, name: "by_metadata_email_address" },
        { key: { ...scope, "metadata.email": 1 }, name: "by_metadata_email" },
      ]),
    ]);
  }

  /** Runs `fn` in a transaction when the server has them, else directly (see the class comment). */
  private async atomically<T>(fn: (session: ClientSession | undefined) => Promise<T>): Promise<T> {
    if (!this.transactions) return fn(undefined);
    return this.client.withSession((session) => session.withTransaction(() => fn(session)));
  }

  // Environment and secret keys.

  async getOrCreateEnvironment(create: () => EnvironmentRecord): Promise<EnvironmentRecord> {
    const found = await this.environments.findOne({ singleton: true });
    if (found) return environmentFromDocument(found);
    const env = create();
    try {
      await this.environments.insertOne(environmentToDocument(env));
      return env;
    } catch (e) {
      if (!isDuplicateKey(e)) throw e;
      // Another caller created it first; the unique index on `singleton` kept ours out.
      const winner = await this.environments.findOne({ singleton: true });
      if (!winner) throw e;
      return environmentFromDocument(winner);
    }
  }

  async insertSecretKey(key: SecretKeyRecord): Promise<void> {
    await mapDuplicate(() => this.secretKeys.insertOne(secretKeyToDocument(key)), `secret key ${key.id}`);
  }

  async listSecretKeys(environmentId: string): Promise<SecretKeyRecord[]> {
    const docs = await this.secretKeys.find({ environmentId }).sort({ createdAt: 1, _id: 1 }).toArray();
    return docs.map(secretKeyFromDocument);
  }

  async touchSecretKey(environmentId: string, id: string, at: number): Promise<void> {
    await this.secretKeys.updateOne({ _id: id, environmentId }, { $set: { lastUsedAt: at } });
  }

  async revokeSecretKey(environmentId: string, id: string, at: number): Promise<SecretKeyRecord | null> {
    const doc = await this.secretKeys.findOneAndUpdate(
      { _id: id, environmentId },
      [{ $set: { revokedAt: { $ifNull: ["$revokedAt", { $literal: at }] } } }],
      { returnDocument: "after" },
    );
    return doc ? secretKeyFromDocument(doc) : null;
  }

  // Integrations.

  async insertIntegration(integration: IntegrationRecord): Promise<void> {
    await mapDuplicate(
      () => this.integrations.insertOne(integrationToDocument(integration)),
      `integration ${integration.uniqueKey}`,
    );
  }

  async getIntegration(environmentId: string, uniqueKey: string): Promise<IntegrationRecord | null> {
    const doc = await this.integrations.findOne({ environmentId, uniqueKey });
    return doc ? integrationFromDocument(doc) : null;
  }

  async markImportedEmailHashes(environmentId: string, uniqueKey: string): Promise<void> {
    await this.integrations.updateOne({ environmentId, uniqueKey }, { $set: { importedEmailHashes: true } });
  }

  async listIntegrations(environmentId: string): Promise<IntegrationRecord[]> {
    const docs = await this.integrations.find({ environmentId }).sort({ createdAt: 1, uniqueKey: 1 }).toArray();
    return docs.map(integrationFromDocument);
  }

  async replaceIntegration(
    environmentId: string,
    uniqueKey: string,
    next: IntegrationRecord,
    reseal?: (moved: SealedCredentials) => string,
  ): Promise<boolean> {
    return mapDuplicate(
      () =>
        this.atomically(async (session) => {
          // Without a transaction the integration moves first: a taken key then fails before any
          // connection has moved.
          const replaced = await this.integrations.replaceOne(
            { environmentId, uniqueKey },
            integrationToDocument({ ...next, environmentId }),
            { session },
          );
          if (replaced.matchedCount === 0) return false;
          if (next.uniqueKey !== uniqueKey) {
            if (reseal) await this.secrets.resealIntegration(environmentId, uniqueKey, reseal, session);
            await this.connections.updateMany(
              { environmentId, providerConfigKey: uniqueKey },
              { $set: { providerConfigKey: next.uniqueKey } },
              { session },
            );
          }
          return true;
        }),
      `integration ${next.uniqueKey}`,
    );
  }

  async deleteIntegration(environmentId: string, uniqueKey: string): Promise<number> {
    return this.atomically(async (session) => {
      const deleted = await this.connections.deleteMany({ environmentId, providerConfigKey: uniqueKey }, { session });
      await this.integrations.deleteOne({ environmentId, uniqueKey }, { session });
      return deleted.deletedCount;
    });
  }

  // Connections.

  async upsertConnection(connection: ConnectionRecord): Promise<{ created: boolean; connection: ConnectionRecord }> {
    const key = this.key(connection.environmentId, connection.providerConfigKey, connection.connectionId);
    // Insert, or re-authorize in one atomic update (connection_config merged on the server). Twice at
    // most: a connection deleted between a failed insert and the update is inserted again.
    for (let attempt = 0; ; attempt++) {
      try {
        await this.connections.insertOne(connectionToDocument(connection));
        return { created: true, connection };
      } catch (e) {
        if (!isDuplicateKey(e)) throw e;
      }
      const updated = await this.connections.findOneAndUpdate(key, reauthorizationUpdate(connection), {
        returnDocument: "after",
      });
      if (updated) return { created: false, connection: connectionFromDocument(updated) };
      // Nothing under that key, so the duplicate was the internal id, taken by another connection.
      if (attempt > 0) throw new DuplicateKeyError(`connection ${connection.id} already exists`);
    }
  }

  async getConnection(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<ConnectionRecord | null> {
    const doc = await this.connections.findOne(this.key(environmentId, providerConfigKey, connectionId));
    return doc ? connectionFromDocument(doc) : null;
  }

  async connectionWebhookOverride(environmentId: string, providerConfigKey: string, connectionId: string) {
    const filter = this.key(environmentId, providerConfigKey, connectionId);
    const doc = await this.connections.findOne(filter, { projection: { _id: 0, webhookUrlOverride: 1 } });
    return doc ? { webhookUrlOverride: doc.webhookUrlOverride || undefined } : null;
  }

  async listConnections(
    environmentId: string,
    filter: ConnectionFilter,
  ): Promise<{ connections: ConnectionRecord[]; total: number }> {
    const query = connectionListQuery(environmentId, filter);
    // limit(0) means "no limit" to MongoDB; an empty page is what a zero limit asks for.
    const [docs, total] = await Promise.all([
      filter.limit > 0
        ? this.connections.find(query).sort(NEWEST_FIRST).skip(filter.offset).limit(filter.limit).toArray()
        : Promise.resolve([]),
      this.connections.countDocuments(query),
    ]);
    return { connections: docs.map(connectionFromDocument), total };
  }

  async countConnections(environmentId: string, providerConfigKey: string): Promise<number> {
    return this.connections.countDocuments({ environmentId, providerConfigKey });
  }

  async deleteConnection(environmentId: string, providerConfigKey: string, connectionId: string): Promise<boolean> {
    const result = await this.connections.deleteOne(this.key(environmentId, providerConfigKey, connectionId));
    return result.deletedCount === 1;
  }

  async patchConnection(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string,
    patch: ConnectionPatch,
    at: number,
  ): Promise<ConnectionRecord | null> {
    const doc = await this.connections.findOneAndUpdate(
      this.key(environmentId, providerConfigKey, connectionId),
      patchUpdate(patch, at),
      { returnDocument: "after" },
    );
    return doc ? connectionFromDocument(doc) : null;
  }

  async writeMetadata(
    environmentId: string,
    providerConfigKey: string,
    connectionIds: string[],
    metadata: Record<string, unknown>,
    mode: MetadataMode,
    at: number,
  ): Promise<ConnectionRecord[]> {
    const wanted = [...new Set(connectionIds)];
    const query: Filter<ConnectionDocument> = { environmentId, providerConfigKey, connectionId: { $in: wanted } };
    return this.atomically(async (session) => {
      // All or nothing: check every id before writing any. The write is one multi-document update
      // (the same change for every connection), atomic as a whole only inside a transaction.
      const present = await this.connections
        .find(query, { session })
        .project<{ connectionId: string }>({ _id: 0, connectionId: 1 })
        .toArray();
      const found = new Set(present.map((d) => d.connectionId));
      const missing = wanted.filter((id) => !found.has(id));
      if (missing.length > 0) throw new UnknownConnectionsError(missing);

      await this.connections.updateMany(query, metadataUpdate(metadata, mode, at), { session });
      const docs = await this.connections.find(query, { session }).toArray();
      const written = new Map(docs.map((d) => [d.connectionId, connectionFromDocument(d)]));
      // Only possible without a transaction: a connection deleted between the check and the read.
      const vanished = wanted.filter((id) => !written.has(id));
      if (vanished.length > 0) throw new UnknownConnectionsError(vanished);
      return connectionIds.map((id) => written.get(id) as ConnectionRecord);
    });
  }

  // Matching lookups (spec: Webhook-to-connection matching), in mongo-match-lookups.ts.

  async findByWatchUri(environmentId: string, providerConfigKey: string, uri: string): Promise<string[]> {
    return (await this.matching.byWatchUri(environmentId, providerConfigKey, uri)).connectionIds;
  }

  matchByWatchUri(environmentId: string, providerConfigKey: string, uri: string): Promise<WatchUriMatch> {
    return this.matching.byWatchUri(environmentId, providerConfigKey, uri);
  }

  async findByEmailHash(environmentId: string, providerConfigKey: string, hash: string): Promise<string[]> {
    return (await this.matching.byEmailHash(environmentId, providerConfigKey, [hash])).connectionIds;
  }

  async findByMetadataEmailAddress(environmentId: string, providerConfigKey: string, email: string): Promise<string[]> {
    return (await this.matching.byMetadata("emailAddress", environmentId, providerConfigKey, email)).connectionIds;
  }

  async findByMetadataEmail(environmentId: string, providerConfigKey: string, email: string): Promise<string[]> {
    return (await this.matching.byMetadata("email", environmentId, providerConfigKey, email)).connectionIds;
  }

  async findByEmail(envId: string, key: string, email: string, options: EmailLookup = {}): Promise<EmailMatch | null> {
    const match = await this.matching.byEmail(envId, key, email, options);
    return match && { tier: match.tier, connectionIds: match.connectionIds };
  }

  matchByEmail(envId: string, key: string, email: string, options: EmailLookup = {}) {
    return this.matching.byEmail(envId, key, email, options);
  }

  private key(environmentId: string, providerConfigKey: string, connectionId: string): Filter<ConnectionDocument> {
    return { environmentId, providerConfigKey, connectionId };
  }
}
