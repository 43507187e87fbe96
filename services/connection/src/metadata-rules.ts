import type { FieldError } from "@junction/platform";
import { MAX_METADATA_BYTES } from "@junction/public-api/limits";
import { errors } from "./errors.ts";

/**
 * Known metadata keys and their types (spec: Resources, Connection, "Known metadata keys"). Other keys
 * are stored as given. null is accepted for every known key: it clears the value.
 */
const KNOWN_KEYS: Record<string, { check: (v: unknown) => boolean; expected: string }> = {
  calendarChannelId: { check: isString, expected: "a string" },
  calendarResourceId: { check: isString, expected: "a string" },
  emailAddress: { check: isString, expected: "a string" },
  email: { check: isString, expected: "a string" },
  calendarWatchResourceUris: { check: isStringArray, expected: "an array of strings" },
  // Nango's name for the same list (connections imported from Nango), read like calendarWatchResourceUris.
  googleCalendarWatchResourceUris: { check: isStringArray, expected: "an array of strings" },
};

/** Throws `invalid_metadata` naming every known key with a wrong type. */
export function validateMetadata(metadata: Record<string, unknown>): void {
  const problems: FieldError[] = [];
  for (const [key, rule] of Object.entries(KNOWN_KEYS)) {
    if (!(key in metadata)) continue;
    const value = metadata[key];
    if (value !== null && !rule.check(value)) {
      problems.push({ path: `metadata.${key}`, message: `must be ${rule.expected}, got ${describe(value)}` });
    }
  }
  if (problems.length > 0) throw errors.invalidMetadata(problems);
}

/** Throws `invalid_metadata` when `metadata` as JSON is larger than the REST API takes (1 MiB). */
export function checkMetadataSize(metadata: Record<string, unknown>, path = "metadata"): void {
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  if (bytes > MAX_METADATA_BYTES) {
    throw errors.invalidMetadata([
      { path, message: `is ${bytes} bytes as JSON, more than the ${MAX_METADATA_BYTES} allowed` },
    ]);
  }
}

function isString(v: unknown): v is string {
  return typeof v === "string";
}

function isStringArray(v: unknown): boolean {
  return Array.isArray(v) && v.every(isString);
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return "an array with a non-string element";
  if (v === null) return "null";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}
