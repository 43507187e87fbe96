import { type Collection, MongoClient, MongoServerError } from "mongodb";
import { endpointFields } from "./endpoint-fields.ts";
import { MongoDeliveryStore } from "./mongo-delivery-store.ts";
import type { EndpointRecord, WebhookSettingsRecord } from "./records.ts";
import { DeliveryDelegate } from "./delivery-delegate.ts";
import type { WebhookServiceStore } from "./store.ts";

/** A settings document: the record, keyed by its environment. */
interface SettingsDoc {
  _id: string;
  version: number;
  endpoints: EndpointRecord[];
  signingSecretEnc: string;
  signingSecretPrefix: string;
  previousSigningSecretEnc: string | null;
  previousSecretValidUntil: number | null;
  /** Absent in documents saved before it existed. */
  signingSecretShown?: boolean;
  createdAt: number;
  updatedAt: number;
}

const DUPLICATE_KEY = 11000;

/**
 * The webhook service's store on MongoDB: one document per environment in `webhook_settings`,
 * replaced whole by a single-document write filtered on the version (atomic by itself); the
 * delivery queue's collections are handled by `MongoDeliveryStore`.
 */
export class MongoWebhookStore extends DeliveryDelegate implements WebhookServiceStore {
  private readonly settings: Collection<SettingsDoc>;
  protected readonly delivery: MongoDeliveryStore;

  /** Uses `dbName` of an already connected client; `close()` closes the client. */
  constructor(
    private readonly client: MongoClient,
    dbName: string,
  ) {
    super();
    this.settings = client.db(dbName).collection<SettingsDoc>("webhook_settings");
    this.delivery = new MongoDeliveryStore(client.db(dbName));
  }

  /** Connects to `url` and uses database `dbName`. */
  static async connect(url: string, dbName: string): Promise<MongoWebhookStore> {
    const client = new MongoClient(url);
    await client.connect();
    const store = new MongoWebhookStore(client, dbName);
    try {
      await store.delivery.createIndexes();
    } catch (err) {
      await client.close();
      throw err;
    }
    return store;
  }

  async getSettings(environmentId: string): Promise<WebhookSettingsRecord | null> {
    const doc = await this.settings.findOne({ _id: environmentId });
    return doc ? fromDoc(doc) : null;
  }

  async saveSettings(record: WebhookSettingsRecord): Promise<boolean> {
    if (!Number.isInteger(record.version) || record.version < 1) return false;
    const doc = toDoc(record);
    if (record.version === 1) {
      try {
        await this.settings.insertOne(doc);
        return true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
        throw err;
      }
    }
    const result = await this.settings.replaceOne({ _id: doc._id, version: record.version - 1 }, doc);
    return result.matchedCount === 1;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function toDoc(r: WebhookSettingsRecord): SettingsDoc {
  return {
    _id: r.environmentId,
    version: r.version,
    endpoints: r.endpoints.map(endpointFields),
    signingSecretEnc: r.signingSecretEnc,
    signingSecretPrefix: r.signingSecretPrefix,
    previousSigningSecretEnc: r.previousSigningSecretEnc,
    previousSecretValidUntil: r.previousSecretValidUntil,
    signingSecretShown: r.signingSecretShown,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

function fromDoc(d: SettingsDoc): WebhookSettingsRecord {
  return {
    environmentId: d._id,
    version: d.version,
    endpoints: d.endpoints.map(endpointFields),
    signingSecretEnc: d.signingSecretEnc,
    signingSecretPrefix: d.signingSecretPrefix,
    previousSigningSecretEnc: d.previousSigningSecretEnc ?? null,
    previousSecretValidUntil: d.previousSecretValidUntil ?? null,
    // Settings saved before the flag existed and that have endpoints were set without showing it.
    signingSecretShown: d.signingSecretShown ?? d.endpoints.length > 0,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}
