import { encodeCursor } from "./record-cursor.ts";
import type { StoredRecord } from "./record-store.ts";

const iso = (ms: number | null) => (ms === null ? "null" : `"${new Date(ms).toISOString()}"`);

/**
 * One record as Nango's GET /records answers it, as JSON text: its payload, `id`, then
 * `_nango_metadata`. Built from the stored text without parsing it (the payload is stored without
 * its `id`, so no key is repeated).
 */
export function recordJson(record: StoredRecord, secret: Uint8Array): string {
  const data = record.data ?? "{}";
  const head = data.length <= 2 ? "{" : `${data.slice(0, -1)},`;
  const meta =
    `{"first_seen_at":${iso(record.firstSeenAt)},"last_modified_at":${iso(record.lastModifiedAt)},` +
    `"last_action":"${record.action}","deleted_at":${iso(record.deletedAt)},` +
    `"cursor":"${encodeCursor(secret, record.seq)}","pruned_at":${iso(record.prunedAt)}}`;
  return `${head}"id":${JSON.stringify(record.id)},"_nango_metadata":${meta}}`;
}

/** The records of a page as a JSON array text. */
export function recordsJson(records: StoredRecord[], secret: Uint8Array | null): string {
  if (!secret || records.length === 0) return "[]";
  return `[${records.map((r) => recordJson(r, secret)).join(",")}]`;
}

/** A record as a script reads it back (getRecordsByIds): its payload with its `id`. */
export function recordPayload(record: StoredRecord): Record<string, unknown> {
  return { ...(JSON.parse(record.data ?? "{}") as Record<string, unknown>), id: record.id };
}
