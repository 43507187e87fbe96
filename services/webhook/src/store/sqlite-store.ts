import type { Database, Statement } from "bun:sqlite";
import { migrate, openDatabase } from "@junction/platform";
import { endpointFields } from "./endpoint-fields.ts";
import type {
  AttemptRecord,
  DeliverableMessage,
  EndpointRecord,
  MessageFilter,
  MessageRecord,
  RoundOutcome,
  WebhookSettingsRecord,
} from "./records.ts";
import { SqliteDeliveryStore } from "./sqlite-delivery-store.ts";
import { MIGRATIONS } from "./sqlite-schema.ts";
import type { WebhookServiceStore } from "./store.ts";

interface SettingsRow {
  environment_id: string;
  version: number;
  endpoints: string;
  signing_secret_enc: string;
  signing_secret_prefix: string;
  previous_signing_secret_enc: string | null;
  previous_secret_valid_until: number | null;
  created_at: number;
  updated_at: number;
}

type Params = Record<string, string | number | null>;

const COLUMNS =
  "environment_id, version, endpoints, signing_secret_enc, signing_secret_prefix, previous_signing_secret_enc, previous_secret_valid_until, created_at, updated_at";

/**
 * The webhook service's store on SQLite. Each settings save is one statement guarded by the
 * version, so it is atomic without an explicit transaction, and a concurrent writer in another
 * process makes it return false rather than overwrite. The delivery queue's tables are handled by
 * `SqliteDeliveryStore` on the same connection.
 */
export class SqliteWebhookStore implements WebhookServiceStore {
  private readonly get: Statement<SettingsRow, [Params]>;
  private readonly insert: Statement<unknown, [Params]>;
  private readonly replace: Statement<unknown, [Params]>;
  private readonly delivery: SqliteDeliveryStore;

  /** Applies the webhook service's migrations to `db` (opened with `openDatabase`). */
  constructor(private readonly db: Database) {
    migrate(db, "webhook", MIGRATIONS);
    this.get = db.query(`SELECT ${COLUMNS} FROM webhook_settings WHERE environment_id = $environment_id`);
    this.insert = db.query(
      `INSERT INTO webhook_settings (${COLUMNS}) VALUES ($environment_id, $version, $endpoints, $signing_secret_enc,
        $signing_secret_prefix, $previous_signing_secret_enc, $previous_secret_valid_until, $created_at, $updated_at)
       ON CONFLICT (environment_id) DO NOTHING`,
    );
    this.replace = db.query(
      `UPDATE webhook_settings SET version = $version, endpoints = $endpoints, signing_secret_enc = $signing_secret_enc,
        signing_secret_prefix = $signing_secret_prefix, previous_signing_secret_enc = $previous_signing_secret_enc,
        previous_secret_valid_until = $previous_secret_valid_until, created_at = $created_at, updated_at = $updated_at
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

  insertMessage(message: MessageRecord): Promise<boolean> {
    return this.delivery.insertMessage(message);
  }

  getMessage(environmentId: string, id: string): Promise<MessageRecord | null> {
    return this.delivery.getMessage(environmentId, id);
  }

  listMessages(
    environmentId: string,
    filter: MessageFilter,
    limit: number,
    beforeId?: string,
  ): Promise<MessageRecord[]> {
    return this.delivery.listMessages(environmentId, filter, limit, beforeId);
  }

  listAttempts(messageId: string): Promise<AttemptRecord[]> {
    return this.delivery.listAttempts(messageId);
  }

  claimMessage(id: string, now: number, leaseUntil: number, leaseToken: string): Promise<MessageRecord | null> {
    return this.delivery.claimMessage(id, now, leaseUntil, leaseToken);
  }

  completeRound(id: string, leaseToken: string, attempts: AttemptRecord[], outcome: RoundOutcome): Promise<boolean> {
    return this.delivery.completeRound(id, leaseToken, attempts, outcome);
  }

  listDeliverable(limit: number): Promise<DeliverableMessage[]> {
    return this.delivery.listDeliverable(limit);
  }

  findDeliverable(id: string): Promise<DeliverableMessage | null> {
    return this.delivery.findDeliverable(id);
  }

  replayMessage(environmentId: string, id: string, now: number): Promise<MessageRecord | null> {
    return this.delivery.replayMessage(environmentId, id, now);
  }

  replayFailed(environmentId: string, since: number, now: number): Promise<string[]> {
    return this.delivery.replayFailed(environmentId, since, now);
  }

  claimNotificationKey(
    environmentId: string,
    channelId: string,
    messageNumber: number,
    notificationId: string,
    now: number,
  ): Promise<string> {
    return this.delivery.claimNotificationKey(environmentId, channelId, messageNumber, notificationId, now);
  }

  findNotificationKey(environmentId: string, channelId: string, messageNumber: number): Promise<string | null> {
    return this.delivery.findNotificationKey(environmentId, channelId, messageNumber);
  }

  pruneNotificationKeys(before: number): Promise<number> {
    return this.delivery.pruneNotificationKeys(before);
  }

  pruneFinishedMessages(before: number, limit: number): Promise<number> {
    return this.delivery.pruneFinishedMessages(before, limit);
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
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
