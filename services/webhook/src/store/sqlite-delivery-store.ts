import type { Database } from "bun:sqlite";
import { GroupCommit } from "@junction/bus/group-commit";
import { idTimeBound } from "@junction/platform";
import type { AttemptRecord, DeliverableMessage, MessageFilter, MessageRecord, RoundOutcome } from "./records.ts";
import {
  type AttemptRow,
  attemptToRow,
  type MessageRow,
  messageToRow,
  rowToAttempt,
  rowToMessage,
} from "./sqlite-delivery-rows.ts";
import type { InlineClaims, WebhookDeliveryStore } from "./store.ts";

type Params = Record<string, string | number | null | Uint8Array>;

const MESSAGE_COLUMNS =
  "id, environment_id, type, provider_config_key, connection_id, notification_id, target_url, body, status, attempt_count, round_attempts, next_attempt_at, last_error, delivered_endpoint_ids, lease_token, lease_until, created_at, updated_at";

/** Whether a message can still be attempted (the others are final until replayed). */
const DELIVERABLE = "status IN ('pending', 'failed')";

/**
 * The delivery half of the webhook store on SQLite: each write is one statement (or one
 * transaction), so a crash leaves either the old or the new state, and a second connection to the
 * same file sees the claims of the first. The writes of the hot path (messages, claims, rounds,
 * de-duplication keys) go through the connection's group commit: those asked for in one turn of the
 * event loop share one transaction, and each resolves once it is committed.
 */
export class SqliteDeliveryStore implements WebhookDeliveryStore {
  private readonly completeTx: (id: string, token: string, attempts: AttemptRecord[], outcome: RoundOutcome) => boolean;
  private readonly writes: GroupCommit;
  /** See WebhookDeliveryStore.inlineClaims: the claims below, run in the caller's transaction. */
  readonly inlineClaims: InlineClaims;

  /** `db` must be migrated already (the webhook migrations). */
  constructor(private readonly db: Database) {
    this.writes = GroupCommit.forDatabase(db);
    // An insert that changes nothing when the key is taken; then the key's owner is read. Not RETURNING:
    // in bun:sqlite it costs a few µs more per insert than the change count. Prepared once: receipt claims a
    // key per notification.
    const claimSql = (table: string, keyColumns: string) =>
      db.query<unknown, (string | number)[]>(
        `INSERT INTO ${table} (environment_id, ${keyColumns}, notification_id, received_at)
         VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      );
    const claimNotificationKey = claimSql("webhook_notification_keys", "channel_id, message_number");
    const claimDedupeKey = claimSql("webhook_dedupe_keys", "provider_config_key, dedupe_key");
    this.inlineClaims = {
      database: db,
      notificationKey: (environmentId, channelId, messageNumber, id, now) =>
        claimNotificationKey.run(environmentId, channelId, messageNumber, id, now).changes === 1
          ? id
          : (this.notificationKeyOwner(environmentId, channelId, messageNumber) ?? id),
      dedupeKey: (environmentId, providerConfigKey, key, id, now) =>
        claimDedupeKey.run(environmentId, providerConfigKey, key, id, now).changes === 1
          ? id
          : (this.dedupeKeyOwner(environmentId, providerConfigKey, key) ?? id),
    };
    const insertAttempt = db.query<unknown, [Params]>(
      `INSERT OR IGNORE INTO webhook_attempts (id, message_id, endpoint_id, url, status_code, latency_ms, response_snippet, error, at, number)
       VALUES ($id, $message_id, $endpoint_id, $url, $status_code, $latency_ms, $response_snippet, $error, $at, $number)`,
    );
    const applyOutcome = db.query<unknown, [Params]>(
      `UPDATE webhook_messages SET status = $status, attempt_count = $attempt_count, round_attempts = $round_attempts,
         next_attempt_at = $next_attempt_at, last_error = $last_error, delivered_endpoint_ids = $delivered_endpoint_ids,
         lease_token = NULL, lease_until = NULL, updated_at = $updated_at
       WHERE id = $id AND lease_token = $lease_token`,
    );
    this.completeTx = db.transaction((id: string, token: string, attempts: AttemptRecord[], o: RoundOutcome) => {
      for (const a of attempts) insertAttempt.run(attemptToRow(a) as unknown as Params);
      const changes = applyOutcome.run({
        id,
        lease_token: token,
        status: o.status,
        attempt_count: o.attemptCount,
        round_attempts: o.roundAttempts,
        next_attempt_at: o.nextAttemptAt,
        last_error: o.lastError,
        delivered_endpoint_ids: JSON.stringify(o.deliveredEndpointIds),
        updated_at: o.updatedAt,
      }).changes;
      return changes === 1;
    });
  }

  insertMessage(m: MessageRecord): Promise<boolean> {
    const row = messageToRow(m) as unknown as Params;
    return this.writes.add(() => this.insertNow(row));
  }

  /** Commits everything written so far (the store is closing). */
  flush(): void {
    this.writes.flush();
  }

  private insertNow(row: Params): boolean {
    const result = this.db
      .query<unknown, [Params]>(
        `INSERT INTO webhook_messages (${MESSAGE_COLUMNS}) VALUES ($id, $environment_id, $type, $provider_config_key,
           $connection_id, $notification_id, $target_url, $body, $status, $attempt_count, $round_attempts, $next_attempt_at, $last_error,
           $delivered_endpoint_ids, $lease_token, $lease_until, $created_at, $updated_at)
         ON CONFLICT (id) DO NOTHING`,
      )
      .run(row);
    return result.changes === 1;
  }

  async getMessage(environmentId: string, id: string): Promise<MessageRecord | null> {
    const row = this.db
      .query<MessageRow, [string, string]>(
        `SELECT ${MESSAGE_COLUMNS} FROM webhook_messages WHERE environment_id = ? AND id = ?`,
      )
      .get(environmentId, id);
    return row ? rowToMessage(row) : null;
  }

  async listMessages(
    environmentId: string,
    filter: MessageFilter,
    limit: number,
    beforeId?: string,
  ): Promise<MessageRecord[]> {
    const index = listingIndex(filter);
    // Without an index to narrow it, the primary key is walked newest first, filtering as it goes:
    // `+` keeps SQLite from choosing an environment-prefixed index and sorting all of its messages.
    const where = [index ? "environment_id = $environment_id" : "+environment_id = $environment_id"];
    if (index === "webhook_messages_unsuccessful") where.push("status IN ('failed', 'exhausted')");
    if (index === "webhook_messages_deliverable") where.push(DELIVERABLE);
    const params: Params = { environment_id: environmentId, limit: Math.max(1, Math.floor(limit)) };
    if (filter.providerConfigKey !== undefined) {
      where.push("provider_config_key = $provider_config_key");
      params.provider_config_key = filter.providerConfigKey;
    }
    if (filter.unmatchedOnly) where.push("connection_id = ''");
    else if (filter.connectionId !== undefined) {
      where.push("connection_id = $connection_id");
      params.connection_id = filter.connectionId;
    }
    if (filter.status !== undefined) {
      where.push("status = $status");
      params.status = filter.status;
    }
    if (filter.type !== undefined) {
      where.push("type = $type");
      params.type = filter.type;
    }
    if (beforeId !== undefined) {
      where.push("id < $before_id");
      params.before_id = beforeId;
    }
    const from = index ? `webhook_messages INDEXED BY ${index}` : "webhook_messages";
    const sql = `SELECT ${MESSAGE_COLUMNS} FROM ${from} WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT $limit`;
    return this.db.query<MessageRow, [Params]>(sql).all(params).map(rowToMessage);
  }

  async listAttempts(messageId: string): Promise<AttemptRecord[]> {
    return this.db
      .query<AttemptRow, [string]>(
        "SELECT id, message_id, endpoint_id, url, status_code, latency_ms, response_snippet, error, at, number FROM webhook_attempts WHERE message_id = ? ORDER BY at, number, id",
      )
      .all(messageId)
      .map(rowToAttempt);
  }

  async claimMessage(id: string, now: number, leaseUntil: number, leaseToken: string): Promise<MessageRecord | null> {
    const row = await this.writes.add(() =>
      this.db
        .query<MessageRow, [Params]>(
          `UPDATE webhook_messages SET lease_token = $lease_token, lease_until = $lease_until
         WHERE id = $id AND ${DELIVERABLE} AND next_attempt_at <= $now AND (lease_until IS NULL OR lease_until <= $now)
         RETURNING ${MESSAGE_COLUMNS}`,
        )
        .get({ id, now, lease_until: leaseUntil, lease_token: leaseToken }),
    );
    return row ? rowToMessage(row) : null;
  }

  completeRound(id: string, leaseToken: string, attempts: AttemptRecord[], outcome: RoundOutcome): Promise<boolean> {
    return this.writes.add(() => this.completeTx(id, leaseToken, attempts, outcome));
  }

  async listDeliverable(limit: number): Promise<DeliverableMessage[]> {
    return this.db
      .query<{ id: string; next_attempt_at: number; lease_until: number | null }, [number]>(
        `SELECT id, next_attempt_at, lease_until FROM webhook_messages
         WHERE ${DELIVERABLE} AND next_attempt_at IS NOT NULL ORDER BY next_attempt_at, id LIMIT ?`,
      )
      .all(Math.max(1, Math.floor(limit)))
      .map((r) => ({ id: r.id, nextAttemptAt: r.next_attempt_at, leaseUntil: r.lease_until }));
  }

  async countPending(environmentId: string, providerConfigKey: string, limit: number): Promise<number> {
    // The partial index of not-final messages: its size is the pending work (bounded by the caps), never
    // the retained history (the integration's index would read every message kept, ~20 ms per 30 000).
    const row = this.db
      .query<{ n: number }, [string, string, number]>(
        `SELECT COUNT(*) AS n FROM (SELECT 1 FROM webhook_messages INDEXED BY webhook_messages_deliverable
         WHERE ${DELIVERABLE} AND environment_id = ? AND provider_config_key = ? LIMIT ?)`,
      )
      .get(environmentId, providerConfigKey, Math.max(1, Math.floor(limit)));
    return row?.n ?? 0;
  }

  async findDeliverable(id: string): Promise<DeliverableMessage | null> {
    const row = this.db
      .query<{ id: string; next_attempt_at: number; lease_until: number | null }, [string]>(
        `SELECT id, next_attempt_at, lease_until FROM webhook_messages
         WHERE id = ? AND ${DELIVERABLE} AND next_attempt_at IS NOT NULL`,
      )
      .get(id);
    return row ? { id: row.id, nextAttemptAt: row.next_attempt_at, leaseUntil: row.lease_until } : null;
  }

  async replayMessage(environmentId: string, id: string, now: number): Promise<MessageRecord | null> {
    const row = this.db
      .query<MessageRow, [Params]>(
        `UPDATE webhook_messages SET ${REPLAY_SET} WHERE environment_id = $environment_id AND id = $id
         RETURNING ${MESSAGE_COLUMNS}`,
      )
      .get({ environment_id: environmentId, id, now });
    return row ? rowToMessage(row) : null;
  }

  async replayFailed(environmentId: string, since: number, now: number): Promise<string[]> {
    return this.db
      .query<{ id: string }, [Params]>(
        `UPDATE webhook_messages SET ${REPLAY_SET}
         WHERE environment_id = $environment_id AND status IN ('failed', 'exhausted') AND created_at >= $since
         RETURNING id`,
      )
      .all({ environment_id: environmentId, since, now })
      .map((r) => r.id)
      .sort();
  }

  claimNotificationKey(
    environmentId: string,
    channelId: string,
    messageNumber: number,
    notificationId: string,
    now: number,
  ): Promise<string> {
    return this.writes.add(() =>
      this.inlineClaims.notificationKey(environmentId, channelId, messageNumber, notificationId, now),
    );
  }

  async findNotificationKey(environmentId: string, channelId: string, messageNumber: number): Promise<string | null> {
    return this.notificationKeyOwner(environmentId, channelId, messageNumber);
  }

  private notificationKeyOwner(environmentId: string, channelId: string, messageNumber: number): string | null {
    const row = this.db
      .query<{ notification_id: string }, [string, string, number]>(
        "SELECT notification_id FROM webhook_notification_keys WHERE environment_id = ? AND channel_id = ? AND message_number = ?",
      )
      .get(environmentId, channelId, messageNumber);
    return row?.notification_id ?? null;
  }

  claimDedupeKey(
    environmentId: string,
    providerConfigKey: string,
    key: string,
    notificationId: string,
    now: number,
  ): Promise<string> {
    return this.writes.add(() =>
      this.inlineClaims.dedupeKey(environmentId, providerConfigKey, key, notificationId, now),
    );
  }

  async findDedupeKey(environmentId: string, providerConfigKey: string, key: string): Promise<string | null> {
    return this.dedupeKeyOwner(environmentId, providerConfigKey, key);
  }

  private dedupeKeyOwner(environmentId: string, providerConfigKey: string, key: string): string | null {
    const row = this.db
      .query<{ notification_id: string }, [string, string, string]>(
        "SELECT notification_id FROM webhook_dedupe_keys WHERE environment_id = ? AND provider_config_key = ? AND dedupe_key = ?",
      )
      .get(environmentId, providerConfigKey, key);
    return row?.notification_id ?? null;
  }

  async pruneNotificationKeys(before: number): Promise<number> {
    return this.pruneOldest("webhook_notification_keys", before) + this.pruneOldest("webhook_dedupe_keys", before);
  }

  /**
   * Keys are stored in the order they are received (no index of their time): the oldest rows, up to the
   * first one received at or after `before`, reading no further. A key written by a writer whose clock
   * lagged, after newer ones, stays until those go too.
   */
  private pruneOldest(table: "webhook_notification_keys" | "webhook_dedupe_keys", before: number): number {
    return this.db
      .query(
        `DELETE FROM ${table} WHERE seq < COALESCE(
           (SELECT seq FROM ${table} WHERE received_at >= ?1 ORDER BY seq LIMIT 1), (SELECT MAX(seq) + 1 FROM ${table}))`,
      )
      .run(before).changes;
  }

  // Message ids sort by creation time: a range of the primary key, oldest first, no scan of the rest.
  pruneFinishedMessages(before: number, limit: number): Promise<number> {
    return this.writes.add(() => {
      const ids = this.db
        .query<{ id: string }, [string, number, number]>(
          `SELECT id FROM webhook_messages WHERE id < ? AND created_at < ? AND status IN ('succeeded', 'exhausted')
           ORDER BY id LIMIT ?`,
        )
        .all(idTimeBound("msg", before), before, limit)
        .map((r) => r.id);
      const attempts = this.db.query("DELETE FROM webhook_attempts WHERE message_id = ?");
      const messages = this.db.query("DELETE FROM webhook_messages WHERE id = ?");
      for (const id of ids) {
        attempts.run(id);
        messages.run(id);
      }
      return ids.length;
    });
  }
}

/**
 * The index a delivery-log listing reads (see the schema's fourth and fifth migrations), or null to
 * walk the primary key: the narrowest set the filter names. Failed or exhausted messages and pending
 * ones have partial indexes (their IN condition is written into the query, which SQLite needs to use
 * them); pending messages are the ones waiting for a round, few, so sorting them by id is cheap.
 */
function listingIndex(filter: MessageFilter): string | null {
  if (filter.status === "pending") return "webhook_messages_deliverable";
  if (filter.status === "failed" || filter.status === "exhausted") return "webhook_messages_unsuccessful";
  if (filter.unmatchedOnly || filter.connectionId !== undefined) return "webhook_messages_by_connection";
  if (filter.providerConfigKey !== undefined) return "webhook_messages_by_integration";
  return null;
}

/** What a replay resets: pending now, a fresh schedule, no endpoint delivered yet, no claim. */
const REPLAY_SET = `status = 'pending', next_attempt_at = $now, round_attempts = 0, delivered_endpoint_ids = '[]',
  last_error = NULL, lease_token = NULL, lease_until = NULL, updated_at = $now`;
