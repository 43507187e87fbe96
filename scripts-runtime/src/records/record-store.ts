/**
 * Where a sync's records live: one partition per environment, integration, connection, model and
 * variant. Within a partition every change (insert, update, delete) takes the next sequence number,
 * so that the order of `seq` is the order of last modification then id, and a walk by `seq` never
 * meets a record twice unless it changed after the walk passed it.
 */
export interface RecordScope {
  environmentId: string;
  providerConfigKey: string;
  connectionId: string;
  model: string;
  /** Nango's sync variant; "base" unless the sync runs as a variant. */
  variant: string;
}

/** The connection part of a scope: what `models` and `clear` take. */
export type ConnectionScope = Omit<RecordScope, "model" | "variant">;

/** Nango's last_action. */
export type RecordAction = "ADDED" | "UPDATED" | "DELETED";

/** A record ready to be written: its id and its payload without `id` as JSON object text. */
export interface PreparedRecord {
  id: string;
  /** JSON text of the record's other fields (`{}` when none). */
  data: string;
  /** Hash of `data`: an unchanged save writes nothing. */
  hash: string;
}

/** A record as stored. Times are Unix milliseconds. */
export interface StoredRecord {
  id: string;
  /** Null once pruned. */
  data: string | null;
  seq: number;
  action: RecordAction;
  firstSeenAt: number;
  lastModifiedAt: number;
  deletedAt: number | null;
  prunedAt: number | null;
}

/** What a write changed. */
export interface WriteCounts {
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

export interface SaveOptions {
  now: number;
  /** Nango's `ignore_if_modified_after` merging: records modified after this time are left as they are. */
  keepModifiedAfter?: number | null;
}

/** A record of `update`: the existing data (null when the record does not exist) → what to write, or null to skip. */
export type UpdateRecord = (id: string, existing: string | null) => PreparedRecord | null;

export interface ListQuery {
  /** Only records after this sequence number (a decoded cursor). */
  afterSeq: number | null;
  limit: number;
  /** Only these last actions (a union); null for all. */
  actions: RecordAction[] | null;
  /** Only records modified at or after this time. */
  modifiedAfter: number | null;
  /** Only these ids. */
  ids: string[] | null;
}

export interface ModelSummary {
  model: string;
  variant: string;
  /** Records kept (deleted ones included, as Nango counts them). */
  count: number;
  lastModifiedAt: number;
}

/** Where a sync left off for a connection (Nango's checkpoints). */
export interface CheckpointKey extends ConnectionScope {
  syncName: string;
  variant: string;
}

export type Checkpoint = Record<string, string | number | boolean>;

/** How long an integration's records are kept, in days; 0 keeps them. */
export interface RetentionRule {
  /** Payloads of records unchanged for this long are pruned. */
  payloadDays: number;
  /** Records of a partition no sync run has written for this long are deleted. */
  recordsDays: number;
}

/** An integration of an environment: what a retention rule applies to. */
export interface IntegrationKey {
  environmentId: string;
  providerConfigKey: string;
}

/** When retention applies: records before these times (Unix milliseconds) go; null for none. */
export interface RetentionCutoffs {
  /** Prune payloads of records last modified before this time. */
  pruneBefore: number | null;
  /** Delete the records of partitions whose last run (or, never run, last change) is before this time. */
  deleteBefore: number | null;
}

/**
 * The operator's retention rules, and the marks that hold them back: a partition's `read` mark is the
 * highest cursor its app has read (GET /records, the change feed, prune), and retention never prunes
 * or deletes a record past it.
 */
export interface RecordRetention {
  /** The app has read the partition up to `seq` (the highest mark is kept). */
  markRead(scope: RecordScope, seq: number): Promise<void>;
  /** A sync run of the connection wrote (or could have written) these models at `now`. */
  markRun(scope: ConnectionScope, models: { model: string; variant: string }[], now: number): Promise<void>;
  getRule(key: IntegrationKey): Promise<RetentionRule | null>;
  setRule(key: IntegrationKey, rule: RetentionRule, now: number): Promise<void>;
  /** Every rule set, with a non-zero term or not. */
  listRules(): Promise<(IntegrationKey & RetentionRule)[]>;
  /** Applies the cutoffs to the integration's partitions, up to each one's read mark, in bounded transactions. */
  apply(key: IntegrationKey, cutoffs: RetentionCutoffs, now: number): Promise<{ pruned: number; deleted: number }>;
}

/**
 * The records store. Each write is one transaction: all of a batch or nothing. Times come in as
 * arguments (the service clock). `secret` of a partition signs its cursors (never shown).
 */
export interface RecordStore {
  /** Retention rules and read marks, on the same database. */
  readonly retention: RecordRetention;
  /** Upserts records (unchanged ones write nothing but their "seen" mark). */
  save(scope: RecordScope, records: PreparedRecord[], options: SaveOptions): Promise<WriteCounts>;
  /** Reads each id's data and writes what `build` makes of it, in one transaction. */
  update(scope: RecordScope, ids: string[], build: UpdateRecord, options: SaveOptions): Promise<WriteCounts>;
  /** Marks records deleted (their payload kept); unknown or already deleted ids change nothing. */
  delete(scope: RecordScope, ids: string[], now: number): Promise<WriteCounts>;
  getByIds(scope: RecordScope, ids: string[]): Promise<StoredRecord[]>;
  list(scope: RecordScope, query: ListQuery): Promise<{ records: StoredRecord[]; hasMore: boolean }>;
  /**
   * Removes the payload of up to `limit` unpruned records at or before `untilSeq` (oldest first),
   * keeping their place in the order; `hasMore` when more are left to prune up to there.
   */
  prune(scope: RecordScope, untilSeq: number, limit: number, now: number): Promise<{ count: number; hasMore: boolean }>;
  /** The partition's cursor secret, null when nothing was ever written to it. */
  secret(scope: RecordScope): Promise<Uint8Array | null>;
  /**
   * Starts a deletion-tracking phase: records saved from now on carry the returned mark. `continuing`
   * (a run resuming an interrupted one) keeps the partition's current phase when it has one, so that
   * what the interrupted run saved counts as seen.
   */
  beginDeleteTracking(scope: RecordScope, continuing?: boolean): Promise<number>;
  /**
   * Marks deleted every live record not saved since `mark` was begun, in transactions of at most
   * `chunk` records; returns how many, and their ids up to `maxIds`.
   */
  endDeleteTracking(
    scope: RecordScope,
    mark: number,
    now: number,
    maxIds: number,
  ): Promise<{ count: number; ids: string[] }>;
  models(scope: ConnectionScope): Promise<ModelSummary[]>;
  /** Removes a connection's records (one model and variant, or all): Nango's emptyCache. */
  clear(scope: ConnectionScope, model?: { model: string; variant: string }): Promise<number>;
  /** Removes everything of a deleted connection: its records of every model and variant, its checkpoints. */
  forgetConnection(scope: ConnectionScope): Promise<number>;
  getCheckpoint(key: CheckpointKey): Promise<Checkpoint | null>;
  saveCheckpoint(key: CheckpointKey, checkpoint: Checkpoint, now: number): Promise<void>;
  clearCheckpoint(key: CheckpointKey): Promise<void>;
  close(): Promise<void>;
}

/** The last action of a record as Nango names it. */
export const RECORD_ACTIONS: readonly RecordAction[] = ["ADDED", "UPDATED", "DELETED"];
