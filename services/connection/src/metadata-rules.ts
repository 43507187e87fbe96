import type { FieldError } from "@junction/platform";
import { METADATA_KEY_RULES, type MetadataKeyRule } from "@junction/providers";
import { MAX_METADATA_BYTES } from "@junction/public-api/limits";
import { errors } from "./errors.ts";

type KeyRule = { check: (v: unknown) => boolean; expected: string };

const RULE_OF_TYPE: Record<MetadataKeyRule["type"], KeyRule> = {
  string: { check: isString, expected: "a string" },
  "string[]": { check: isStringArray, expected: "an array of strings" },
};

/**
 * Known metadata keys and their types (spec: Resources, Connection, "Known metadata keys"): the
 * spec's email keys (matching rule 2, any provider), then the keys the provider adapters declare
 * (`metadataKeys`). Other keys are stored as given. null is accepted for every known key: it clears the value.
 */
const KNOWN_KEYS: Record<string, KeyRule> = {
  emailAddress: RULE_OF_TYPE.string,
  email: RULE_OF_TYPE.string,
  ...Object.fromEntries(METADATA_KEY_RULES.map((rule) => [rule.key, RULE_OF_TYPE[rule.type]])),
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
