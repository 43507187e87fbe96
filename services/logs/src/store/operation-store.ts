import type { Operation, OperationKind, OperationStatus } from "@junction/platform/operations/operation";

/** Where a page starts: after this operation, in the log's order (newest first). */
export interface OperationPosition {
  startedAtMs: number;
  id: string;
}

/** The filters of `GET /logs/operations`, already checked. */
export interface OperationFilter {
  kind?: OperationKind;
  status?: OperationStatus;
  integration?: string;
  connection?: string;
  endUser?: string;
  tag?: string;
  fromMs?: number;
  toMs?: number;
  /** Full text over the title and the messages: every word must occur (a word's prefix matches). */
  q?: string;
}

/** How much the store keeps: the operator's retention. */
export interface RetentionBounds {
  /** Older operations are removed. */
  maxAgeMs: number;
  /** Past this many, the oldest are removed. */
  maxCount: number;
}

/** The operations log's store: SQLite (embedded) or MongoDB, one conformance suite. */
export interface OperationStore {
  /** Adds a batch (an id already stored is skipped: a batch carried twice is kept once). */
  insert(batch: Operation[]): Promise<void>;
  /**
   * The same for a batch already encoded as one JSON array (the recorder's text: `operationsFromJson` reads it),
   * where the store passes text on as it is (the writer thread): no objects rebuilt on the way.
   */
  insertEncoded?(json: string): Promise<void>;
  /** Newest first, at most `limit`, after `after` when given. */
  list(filter: OperationFilter, limit: number, after?: OperationPosition): Promise<Operation[]>;
  get(id: string): Promise<Operation | undefined>;
  /** Removes what the bounds no longer allow; answers how many went. */
  prune(bounds: RetentionBounds, nowMs: number): Promise<number>;
  count(): Promise<number>;
  close(): Promise<void>;
}

/** Words of a search, as both stores match them: letters and digits, lower-cased. */
export function searchWords(q: string): string[] {
  return (q.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).slice(0, 16);
}
