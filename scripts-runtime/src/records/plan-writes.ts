import type { PreparedRecord, RecordAction, WriteCounts } from "./record-store.ts";

/** What a store knows of a record before a write. */
export interface ExistingRecord {
  hash: string;
  action: RecordAction;
  lastModifiedAt: number;
  pruned: boolean;
  seenMark: number;
}

/** One row to write: a new record, a changed one (next seq), or an unchanged one touched. */
export type PlannedWrite =
  | { kind: "insert"; record: PreparedRecord; seq: number }
  | { kind: "change"; record: PreparedRecord; seq: number }
  /** Unchanged: only its "seen" mark, and its payload when it was pruned (its place is kept). */
  | { kind: "touch"; record: PreparedRecord; restore: boolean };

export interface PartitionState {
  nextSeq: number;
  mark: number;
  lastModifiedAt: number;
}

/** The writes of a save, in id order, and the partition after it. */
export interface SavePlan {
  writes: PlannedWrite[];
  counts: WriteCounts;
  /** The modification time of every changed record: never before the partition's last one. */
  at: number;
  nextSeq: number;
}

/** Sorted by id, first occurrence of an id kept (as Nango keeps it). */
export function uniqueById<T extends { id: string }>(records: T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const r of records) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    out.push(r);
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Decides each record's write. Changed records take sequence numbers in id order, all at one time
 * `at` (never earlier than the partition's last change): ordering by `seq` is then ordering by last
 * modification then id, which is Nango's cursor order.
 */
export function planSave(
  records: PreparedRecord[],
  existing: Map<string, ExistingRecord>,
  partition: PartitionState,
  now: number,
  keepModifiedAfter: number | null = null,
): SavePlan {
  const counts: WriteCounts = { added: 0, updated: 0, deleted: 0, unchanged: 0 };
  const writes: PlannedWrite[] = [];
  let seq = partition.nextSeq;
  for (const record of uniqueById(records)) {
    const found = existing.get(record.id);
    if (!found) {
      writes.push({ kind: "insert", record, seq: seq++ });
      counts.added++;
      continue;
    }
    const keep = keepModifiedAfter !== null && found.lastModifiedAt > keepModifiedAfter;
    if (keep || (found.hash === record.hash && found.action !== "DELETED")) {
      counts.unchanged++;
      if (!keep && (found.pruned || found.seenMark !== partition.mark)) {
        writes.push({ kind: "touch", record, restore: found.pruned });
      }
      continue;
    }
    writes.push({ kind: "change", record, seq: seq++ });
    counts.updated++;
  }
  return { writes, counts, at: Math.max(now, partition.lastModifiedAt), nextSeq: seq };
}
