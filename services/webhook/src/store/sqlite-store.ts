import type { Database, Statement } from "bun:sqlite";
import { migrate, openDatabase } from "@junction/platform";
import { endpointFields } from "./endpoint-fields.ts";
import type { EndpointRecord, WebhookSettingsRecord } from "./records.ts";
import { SqliteDeliveryStore } from "./sqlite-delivery-store.ts";
import { MIGRATIONS } from "./sqlite-schema.ts";
import { DeliveryDelegate } from "./delivery-delegate.ts";
import type { WebhookServiceStore } from "./store.ts";

interface SettingsRow {
  environment_id: string;
  version: number;
  endpoints: string;
  signing_secret_enc: string;
  signing_secret_prefix: string;
  previous_signing_secret_enc: string | null;
  previous_secret_valid_until: number | null;
  signing_secret_shown: number;
  created_at: number;
  updated_at: number;
}

type Params = Record<string, string | number | null>;

const COLUMNS =
  "environment_id, version, endpoints, signing_secret_enc, signing_secret_prefix, previous_signing_secret_enc, previous_secret_valid_until, signing_secret_shown, created_at, updated_at";

/**
 * The webhook service's store on SQLite. Each settings save is one statement guarded by the
 * version, so it is atomic without an explicit transaction, and a concurrent writer in another
 * process makes it return false rather than overwrite. The delivery queue's tables are handled by
 * `SqliteDeliveryStore` on the same connection.
 */
export class SqliteWebhookStore extends DeliveryDelegate implements WebhookServiceStore {
  private readonly get: Statement<SettingsRow, [Params]>;
  private readonly insert: Statement<unknown, [Params]>;
  private readonly replace: Statement<unknown, [Params]>;
  protected readonly delivery: SqliteDeliveryStore;

  /** Applies the webhook service's migrations to `db` (opened with `openDatabase`). */
  constructor(private readonly db: Database) {
    super();
    migrate(db, "webhook", MIGRATIONS);
    this.get = db.query(`SELECT ${COLUMNS} FROM webhook_settings WHERE environment_id = $environment_id`);
    this.insert = db.query(
      `INSERT INTO webhook_settings (${COLUMNS}) VALUES ($environment_id, $version, $endpoints, $signing_secret_enc,
        $signing_secret_prefix, $previous_signing_secret_enc, $previous_secret_valid_until, $signing_secret_shown, $created_at, $updated_at)
       ON CONFLICT (environment_id) DO NOTHING`,
    );
    this.replace = db.query(
      `UPDATE webhook_settings SET version = $version, endpoints = $endpoints, signing_secret_enc = $signing_secret_enc,
        signing_secret_prefix = $signing_secret_prefix, previous_signing_secret_enc = $previous_signing_secret_enc,
        previous_secret_valid_until = $previous_secret_valid_until,
        signing_secret_shown = $signing_secret_shown, created_at = $created_at, updated_at = $updated_at
       WHERE environment_id = $environment_id AND version = $version - 1`,
    );
    this.delivery = new SqliteDeliveryStore(db);
  }

  /** Opens (creating and migrating) the SQLite file at `path`. */
  static open(path: string): SqliteWebhookStore {
    return new SqliteWebhookStore(openDatabase(path));
  }

  async getSettings(environmentId: string): Promise<WebhookSettingsRecord | null> {
    const row = this.get.get({ environment_id: environmentId });
    return row ? fromRow(row) : null;
  }

  async saveSettings(record: WebhookSettingsRecord): Promise<boolean> {
    if (!Number.isInteger(record.version) || record.version < 1) return false;
    const statement = record.version === 1 ? this.insert : this.replace;
    return statement.run({ ...toRow(record) }).changes === 1;
  }

  async close(): Promise<void> {
    this.delivery.flush();
    this.get.finalize();
    this.insert.finalize();
    this.replace.finalize();
    this.db.close();
  }
}

function toRow(r: WebhookSettingsRecord): SettingsRow {
  return {
    environment_id: r.environmentId,
    version: r.version,
    endpoints: JSON.stringify(r.endpoints.map(endpointFields)),
    signing_secret_enc: r.signingSecretEnc,
    signing_secret_prefix: r.signingSecretPrefix,
    previous_signing_secret_enc: r.previousSigningSecretEnc,
    previous_secret_valid_until: r.previousSecretValidUntil,
    signing_secret_shown: r.signingSecretShown ? 1 : 0,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

function fromRow(row: SettingsRow): WebhookSettingsRecord {
  return {
    environmentId: row.environment_id,
    version: row.version,
    endpoints: (JSON.parse(row.endpoints) as EndpointRecord[]).map(endpointFields),
    signingSecretEnc: row.signing_secret_enc,
    signingSecretPrefix: row.signing_secret_prefix,
    previousSigningSecretEnc: row.previous_signing_secret_enc,
    previousSecretValidUntil: row.previous_secret_valid_until,
    signingSecretShown: row.signing_secret_shown === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
