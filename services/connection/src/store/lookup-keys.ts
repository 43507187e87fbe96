import type { ConnectionRecord } from "./records.ts";
import { normalizeEmail, watchUris } from "./store.ts";

/** The values a connection is found by, derived from its JSON fields on every write. */
export interface ConnectionLookupKeys {
  /** connection_config.emailAddressHash, when a string (spec: Webhook-to-connection matching, rule 2). */
  emailAddressHash: string | null;
  /** metadata.emailAddress, trimmed and lower-cased. */
  metadataEmailAddress: string | null;
  /** metadata.email, trimmed and lower-cased. */
  metadataEmail: string | null;
  /** The `watch_uris` match key: the strings of the metadata arrays providers declare as watch URIs, de-duplicated (rule 1). */
  watchUris: string[];
  /** endUser.id, for listing by end user. */
  endUserId: string | null;
}

/** Derives the lookup keys of a connection. */
export function connectionLookupKeys(
  record: Pick<ConnectionRecord, "connectionConfig" | "metadata" | "endUser">,
): ConnectionLookupKeys {
  const hash = record.connectionConfig.emailAddressHash;
  return {
    emailAddressHash: typeof hash === "string" ? hash : null,
    metadataEmailAddress: normalizeEmail(record.metadata.emailAddress),
    metadataEmail: normalizeEmail(record.metadata.email),
    watchUris: watchUris(record.metadata),
    endUserId: endUserIdOf(record.endUser),
  };
}

/** The id of an end user object ({id, email, display_name}); numbers are accepted as their decimal form. */
export function endUserIdOf(endUser: Record<string, unknown> | null): string | null {
  const id = endUser?.id;
  if (typeof id === "string" && id !== "") return id;
  if (typeof id === "number" && Number.isFinite(id)) return String(id);
  return null;
}
