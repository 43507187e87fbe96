import type { Database } from "bun:sqlite";
import type { Collection, Db } from "mongodb";

/** A provider defined over the API (POST /providers): its validated definition, as JSON. */
export interface ProviderDefinitionRecord {
  /** The provider's name (the definition's `name`). */
  name: string;
  /** The definition as the operator sent it (validated; defaults left out as sent). */
  definition: string;
  updatedAt: number;
}

/** Providers defined over the API, kept with the integrations so every process of the service sees them. */
export interface ProviderDefinitionStore {
  /** Stores the definition of `record.name`, replacing one stored before; true when there was none. */
  putProviderDefinition(record: ProviderDefinitionRecord): Promise<boolean>;
  /** Every stored definition, by name. */
  listProviderDefinitions(): Promise<ProviderDefinitionRecord[]>;
}

interface DefinitionRow {
  name: string;
  definition: string;
  updated_at: number;
}

/** In SQLite: the provider_definitions table (migration 9); the existence check and the write in one transaction. */
export class SqliteProviderDefinitions implements ProviderDefinitionStore {
  private readonly put: (record: ProviderDefinitionRecord) => boolean;

  constructor(private readonly db: Database) {
    const exists = db.prepare<{ one: number }, [string]>("SELECT 1 AS one FROM provider_definitions WHERE name = ?");
    const upsert = db.prepare(
      "INSERT INTO provider_definitions (name, definition, updated_at) VALUES ($name, $definition, $updated_at) ON CONFLICT(name) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at",
    );
    this.put = db.transaction((r: ProviderDefinitionRecord) => {
      const created = exists.get(r.name) === null;
      upsert.run({ name: r.name, definition: r.definition, updated_at: r.updatedAt });
      return created;
    });
  }

  async putProviderDefinition(record: ProviderDefinitionRecord): Promise<boolean> {
    return this.put(record);
  }

  async listProviderDefinitions(): Promise<ProviderDefinitionRecord[]> {
    return this.db
      .query<DefinitionRow, []>("SELECT name, definition, updated_at FROM provider_definitions ORDER BY name")
      .all()
      .map((r) => ({ name: r.name, definition: r.definition, updatedAt: r.updated_at }));
  }
}

interface DefinitionDocument {
  _id: string;
  definition: string;
  updatedAt: number;
}

/** In MongoDB: one document per provider, written with one atomic upsert. */
export class MongoProviderDefinitions implements ProviderDefinitionStore {
  private readonly docs: Collection<DefinitionDocument>;

  constructor(db: Db) {
    this.docs = db.collection("provider_definitions");
  }

  async putProviderDefinition({ name, definition, updatedAt }: ProviderDefinitionRecord): Promise<boolean> {
    const res = await this.docs.updateOne({ _id: name }, { $set: { definition, updatedAt } }, { upsert: true });
    return res.upsertedCount === 1;
  }

  async listProviderDefinitions(): Promise<ProviderDefinitionRecord[]> {
    const docs = await this.docs.find({}).sort({ _id: 1 }).toArray();
    return docs.map((d) => ({ name: d._id, definition: d.definition, updatedAt: d.updatedAt }));
  }
}
