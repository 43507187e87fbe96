import type { Collection, Db, MongoClient } from "mongodb";
import { connectMongo } from "./mongo-connect.ts";
import type { NewScriptVersion, ScriptVersionRecord, ScriptVersionSummary } from "./records.ts";
import { summarize } from "./records.ts";
import type { ScriptStore } from "./stores.ts";

/** A script version; `compiled` and `declaration` as JSON text, so no key of theirs trips MongoDB. */
interface VersionDocument {
  _id: string;
  environmentId: string;
  providerConfigKey: string;
  name: string;
  version: number;
  source: string;
  compiled: string;
  declaration: string;
  createdAt: number;
}

/** The last version number handed out per script, kept after a removal so numbers are never reused. */
interface HeadDocument {
  _id: string;
  environmentId: string;
  providerConfigKey: string;
  name: string;
  lastVersion: number;
}

/**
 * Uploaded scripts on MongoDB. A version number is taken with one atomic `$inc` on the script's
 * head document, so concurrent uploads get distinct numbers without a transaction; a unique index
 * on (script, version) backs it.
 */
export class MongoScriptStore implements ScriptStore {
  private readonly versions: Collection<VersionDocument>;
  private readonly heads: Collection<HeadDocument>;

  constructor(
    db: Db,
    private readonly client: MongoClient | null = null,
  ) {
    this.versions = db.collection("script_versions");
    this.heads = db.collection("script_heads");
  }

  /** Connects to `url`, uses database `dbName`, creates the indexes; `close` closes the client. */
  static async connect(url: string, dbName: string): Promise<MongoScriptStore> {
    return connectMongo(url, dbName, async (db, client) => {
      const store = new MongoScriptStore(db, client);
      await store.createIndexes();
      return store;
    });
  }

  async createIndexes(): Promise<void> {
    await this.versions.createIndexes([
      { key: { environmentId: 1, providerConfigKey: 1, name: 1, version: -1 }, unique: true, name: "script_version" },
    ]);
  }

  async addVersion(input: NewScriptVersion): Promise<ScriptVersionRecord> {
    const headId = key(input.environmentId, input.providerConfigKey, input.name);
    const head = await this.heads.findOneAndUpdate(
      { _id: headId },
      {
        $inc: { lastVersion: 1 },
        $setOnInsert: {
          environmentId: input.environmentId,
          providerConfigKey: input.providerConfigKey,
          name: input.name,
        },
      },
      { upsert: true, returnDocument: "after" },
    );
    const record: ScriptVersionRecord = { ...input, version: head?.lastVersion ?? 1 };
    await this.versions.insertOne(toDocument(record));
    return record;
  }

  async getLatest(environmentId: string, providerConfigKey: string, name: string): Promise<ScriptVersionRecord | null> {
    const [doc] = await this.versions
      .find({ environmentId, providerConfigKey, name })
      .sort({ version: -1 })
      .limit(1)
      .toArray();
    return doc ? fromDocument(doc) : null;
  }

  async getVersion(
    environmentId: string,
    providerConfigKey: string,
    name: string,
    version: number,
  ): Promise<ScriptVersionRecord | null> {
    const doc = await this.versions.findOne({ environmentId, providerConfigKey, name, version });
    return doc ? fromDocument(doc) : null;
  }

  async listLatest(environmentId: string, providerConfigKey?: string): Promise<ScriptVersionRecord[]> {
    const scope = providerConfigKey === undefined ? { environmentId } : { environmentId, providerConfigKey };
    const docs = await this.versions
      .aggregate<VersionDocument>([
        { $match: scope },
        { $sort: { providerConfigKey: 1, name: 1, version: -1 } },
        { $group: { _id: { providerConfigKey: "$providerConfigKey", name: "$name" }, doc: { $first: "$$ROOT" } } },
        { $replaceRoot: { newRoot: "$doc" } },
        { $sort: { providerConfigKey: 1, name: 1 } },
      ])
      .toArray();
    return docs.map(fromDocument);
  }

  async listVersions(environmentId: string, providerConfigKey: string, name: string): Promise<ScriptVersionSummary[]> {
    const docs = await this.versions.find({ environmentId, providerConfigKey, name }).sort({ version: -1 }).toArray();
    return docs.map((d) => summarize(fromDocument(d)));
  }

  async remove(environmentId: string, providerConfigKey: string, name: string): Promise<number> {
    return (await this.versions.deleteMany({ environmentId, providerConfigKey, name })).deletedCount;
  }

  async removeIntegration(environmentId: string, providerConfigKey: string): Promise<number> {
    return (await this.versions.deleteMany({ environmentId, providerConfigKey })).deletedCount;
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}

/** One string per script; the parts cannot contain NUL. */
const key = (environmentId: string, providerConfigKey: string, name: string) =>
  [environmentId, providerConfigKey, name].join("\u0000");

function toDocument(record: ScriptVersionRecord): VersionDocument {
  return {
    _id: record.id,
    environmentId: record.environmentId,
    providerConfigKey: record.providerConfigKey,
    name: record.name,
    version: record.version,
    source: record.source,
    compiled: JSON.stringify(record.compiled),
    declaration: JSON.stringify(record.declaration),
    createdAt: record.createdAt,
  };
}

function fromDocument(doc: VersionDocument): ScriptVersionRecord {
  return {
    id: doc._id,
    environmentId: doc.environmentId,
    providerConfigKey: doc.providerConfigKey,
    name: doc.name,
    version: doc.version,
    source: doc.source,
    compiled: JSON.parse(doc.compiled),
    declaration: JSON.parse(doc.declaration),
    createdAt: doc.createdAt,
  };
}
