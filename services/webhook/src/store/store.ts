import type {
  AttemptRecord,
  DeliverableMessage,
  MessageFilter,
  MessageRecord,
  RoundOutcome,
  WebhookSettingsRecord,
} from "./records.ts";

/** The environment's webhook settings: endpoints and signing secrets. */
export interface WebhookSettingsStore {
  /** The settings of `environmentId`, or null when none were saved yet. */
  getSettings(environmentId: string): Promise<WebhookSettingsRecord | null>;
  /**
   * Replaces the environment's settings with `record`, atomically and only if nobody else saved
   * in between: the write happens when the stored version is `record.version - 1` (or, for
   * `record.version === 1`, when nothing is stored yet). Returns false, writing nothing, otherwise.
   */
  saveSettings(record: WebhookSettingsRecord): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The delivery queue's state: messages, their attempts, and the de-duplication records of
 * notifications. Times come in as arguments (the caller's clock), never the database's.
 */
export interface WebhookDeliveryStore {
  /** Stores a new message; false, changing nothing, when one with its id exists (idempotent). */
  insertMessage(message: MessageRecord): Promise<boolean>;
  /** One message of the environment, or null. */
  getMessage(environmentId: string, id: string): Promise<MessageRecord | null>;
  /** Messages matching `filter`, newest first (by id), `limit` at most, older than `beforeId` when set. */
  listMessages(
    environmentId: string,
    filter: MessageFilter,
    limit: number,
    beforeId?: string,
  ): Promise<MessageRecord[]>;
  /** The message's attempts, oldest first. */
  listAttempts(messageId: string): Promise<AttemptRecord[]>;
  /**
   * Takes a message for one delivery round: only when it is pending or failed, due at `now`, and
   * not claimed by someone else whose claim still holds. Returns it as claimed, or null.
   */
  claimMessage(id: string, now: number, leaseUntil: number, leaseToken: string): Promise<MessageRecord | null>;
  /**
   * Records a round: the attempts always (they happened), and the outcome only when the claim
   * `leaseToken` still holds (a replay in between wins). Clears the claim. Returns whether the
   * outcome was written.
   */
  completeRound(id: string, leaseToken: string, attempts: AttemptRecord[], outcome: RoundOutcome): Promise<boolean>;
  /** Pending and failed messages (due or not), earliest due first, `limit` at most. */
  listDeliverable(limit: number): Promise<DeliverableMessage[]>;
  /**
   * How many of an integration's messages are pending or failed (not final), counting at most
   * `limit` (intake's cap on pending work asks whether the count reached its cap, nothing more).
   */
  countPending(environmentId: string, providerConfigKey: string, limit: number): Promise<number>;
  /** The message as `listDeliverable` shows it, or null when it is unknown or final. */
  findDeliverable(id: string): Promise<DeliverableMessage | null>;
  /**
   * Makes a message pending again, due at `now`, with a fresh retry schedule and no endpoint
   * counted as delivered; drops any claim. Returns it, or null when unknown.
   */
  replayMessage(environmentId: string, id: string, now: number): Promise<MessageRecord | null>;
  /** Replays every failed or exhausted message created at or after `since`; returns their ids. */
  replayFailed(environmentId: string, since: number, now: number): Promise<string[]>;
  /**
   * Records that notification `notificationId` carries (channel id, message number), unless another
   * notification recorded it first. Returns the notification id that owns the pair.
   */
  claimNotificationKey(
    environmentId: string,
    channelId: string,
    messageNumber: number,
    notificationId: string,
    now: number,
  ): Promise<string>;
  /** The notification id that owns (channel id, message number), or null. */
  findNotificationKey(environmentId: string, channelId: string, messageNumber: number): Promise<string | null>;
  /**
   * Records that notification `notificationId` carries the provider's de-duplication key `key`
   * within integration `providerConfigKey`, unless another notification recorded it first. Returns
   * the notification id that owns it. Kept apart from the (channel id, message number) keys.
   */
  claimDedupeKey(
    environmentId: string,
    providerConfigKey: string,
    key: string,
    notificationId: string,
    now: number,
  ): Promise<string>;
  /** The notification id that owns `key` within the integration, or null. */
  findDedupeKey(environmentId: string, providerConfigKey: string, key: string): Promise<string | null>;
  /**
   * The two claims above as synchronous writes on the store's SQLite connection (`database`), for a
   * caller that commits a claim together with another write on it (receipt: with the notification's
   * job, when the bus keeps its queues in the same file). Absent where the store cannot (MongoDB).
   */
  readonly inlineClaims?: InlineClaims;
  /**
   * Forgets de-duplication records (both kinds) received before `before`; returns how many. A store may
   * keep a record received before `before` but stored after one received since (SQLite prunes the oldest
   * rows in the order they were written): a writer's lagging clock delays its records' pruning.
   */
  pruneNotificationKeys(before: number): Promise<number>;
  /**
   * Deletes up to `limit` messages created before `before` that are final (succeeded or exhausted),
   * with their attempts; returns how many messages. Pending and failed messages are never pruned.
   */
  pruneFinishedMessages(before: number, limit: number): Promise<number>;
}

/** Everything the webhook service stores, in one SQLite file or MongoDB database. */
export type WebhookServiceStore = WebhookSettingsStore & WebhookDeliveryStore;

/** De-duplication claims run inside a caller's transaction; each returns the key's owner. */
export interface InlineClaims {
  readonly database: unknown;
  notificationKey(environmentId: string, channelId: string, messageNumber: number, id: string, now: number): string;
  dedupeKey(environmentId: string, providerConfigKey: string, key: string, id: string, now: number): string;
}
