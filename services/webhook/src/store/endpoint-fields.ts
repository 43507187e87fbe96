import type { EndpointRecord } from "./records.ts";

/**
 * A copy of an endpoint with exactly its known fields, the optional ones only when set: what is
 * stored, and what is read back (a stored document may carry nulls or stray keys).
 */
export function endpointFields(e: EndpointRecord): EndpointRecord {
  const out: EndpointRecord = { id: e.id, url: e.url, enabled: e.enabled, createdAt: e.createdAt };
  if (typeof e.disabledReason === "string") out.disabledReason = e.disabledReason;
  if (typeof e.failingSince === "number") out.failingSince = e.failingSince;
  return out;
}
