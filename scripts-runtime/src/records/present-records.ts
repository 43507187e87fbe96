import { cursorSigner } from "./record-cursor.ts";
import type { StoredRecord } from "./record-store.ts";

/** ISO times as JSON, remembered within a page (the records of a batch share theirs). */
function isoWriter(): (ms: number | null) => string {
  const seen = new Map<number, string>();
  return (ms) => {
    if (ms === null) return "null";
    let text = seen.get(ms);
    if (text === undefined) {
      text = `"${new Date(ms).toISOString()}"`;
      seen.set(ms, text);
    }
    return text;
  };
}

/**
 * One record as Nango's GET /records answers it, as JSON text: its payload, `id`, then
 * `_nango_metadata`. Built from the stored text without parsing it (the payload is stored without
 * its `id`, so no key is repeated).
 */
export function recordJson(
  record: StoredRecord,
  cursor: (seq: number) => string,
  iso: (ms: number | null) => string = isoWriter(),
): string {
  const data = record.data ?? "{}";
  const head = data.length <= 2 ? "{" : `${data.slice(0, -1)},`;
  const meta =
    `{"first_seen_at":${iso(record.firstSeenAt)},"last_modified_at":${iso(record.lastModifiedAt)},` +
    `"last_action":"${record.action}","deleted_at":${iso(record.deletedAt)},` +
    `"cursor":"${cursor(record.seq)}","pruned_at":${iso(record.prunedAt)}}`;
  return `${head}"id":${JSON.stringify(record.id)},"_nango_metadata":${meta}}`;
}

/** The records of a page as a JSON array text. */
export function recordsJson(records: StoredRecord[], secret: Uint8Array | null): string {
  if (!secret || records.length === 0) return "[]";
  const cursor = cursorSigner(secret);
  const iso = isoWriter();
  return `[${records.map((r) => recordJson(r, cursor, iso)).join(",")}]`;
}

/** A record as a script reads it back (getRecordsByIds): its payload with its `id`. */
export function recordPayload(record: StoredRecord): Record<string, unknown> {
  return { ...(JSON.parse(record.data ?? "{}") as Record<string, unknown>), id: record.id };
}
