import type { AnyBulkWriteOperation } from "mongodb";
import type { PlannedWrite } from "./plan-writes.ts";
import type { RecordAction } from "./record-store.ts";

/** A record as the MongoDB store keeps it: one document per record, `p` naming its partition. */
export interface RecordDoc {
  p: string;
  id: string;
  seq: number;
  data: string | null;
  hash: string;
  action: RecordAction;
  firstSeenAt: number;
  lastModifiedAt: number;
  deletedAt: number | null;
  prunedAt: number | null;
  seenMark: number;
}

/**
 * The bulk-write operation of one planned write in partition `p`: a new record inserted, a changed one
 * updated with its next sequence number, an unchanged one given the partition's mark (and its data
 * back when it was pruned). `mark` is the partition's current mark, `at` the save's modification time.
 */
export function recordDocWrite(w: PlannedWrite, p: string, mark: number, at: number): AnyBulkWriteOperation<RecordDoc> {
  const r = w.record;
  if (w.kind === "insert") {
    const doc: RecordDoc = {
      p,
      id: r.id,
      seq: w.seq,
      data: r.data,
      hash: r.hash,
      action: "ADDED",
      firstSeenAt: at,
      lastModifiedAt: at,
      deletedAt: null,
      prunedAt: null,
      seenMark: mark,
    };
    return { insertOne: { document: doc } };
  }
  const set: Partial<RecordDoc> =
    w.kind === "change"
      ? {
          seq: w.seq,
          data: r.data,
          hash: r.hash,
          action: "UPDATED",
          lastModifiedAt: at,
          deletedAt: null,
          prunedAt: null,
          seenMark: mark,
        }
      : w.restore
        ? { data: r.data, prunedAt: null, seenMark: mark }
        : { seenMark: mark };
  return { updateOne: { filter: { p, id: r.id }, update: { $set: set } } };
}
