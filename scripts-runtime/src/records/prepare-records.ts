import { schemaIssues } from "../declaration/action-input.ts";
import type { JsonSchema } from "../declaration/script-declaration.ts";
import { RecordsError } from "./record-errors.ts";
import type { PreparedRecord } from "./record-store.ts";

/** Bounds of one record call of a script (batchSave, batchUpdate, batchDelete, getRecordsByIds). */
export const RECORD_LIMITS = {
  /** Nango's external ids are at most 255 characters. */
  maxIdLength: 255,
  /** One record's JSON. */
  maxRecordBytes: 1024 * 1024,
  /** Records per call. */
  maxBatch: 10_000,
} as const;

/** Checks a batch's size before anything else. */
export function checkBatchSize(count: number, what: string): void {
  if (count > RECORD_LIMITS.maxBatch) {
    throw new RecordsError(
      "batch_too_large",
      `${what}: ${count} records in one call, at most ${RECORD_LIMITS.maxBatch} (split the batch)`,
      413,
    );
  }
}

/** A record's id as Nango keeps it (a string; numbers as their text), or the reason it has none. */
export function recordId(record: unknown, index: number, model: string): string {
  const where = `record ${index + 1} of model ${model}`;
  if (record === null || typeof record !== "object" || Array.isArray(record)) {
    throw new RecordsError("invalid_record", `${where} is not an object`);
  }
  const id = (record as { id?: unknown }).id;
  if ((typeof id !== "string" && typeof id !== "number") || id === "") {
    throw new RecordsError("missing_record_id", `${where} has no id (a non-empty string or a number)`);
  }
  const text = String(id);
  if (text.length > RECORD_LIMITS.maxIdLength) {
    throw new RecordsError(
      "record_id_too_long",
      `${where}: id is ${text.length} characters, at most ${RECORD_LIMITS.maxIdLength}`,
    );
  }
  return text;
}

/**
 * A record as stored: its id, the JSON text of its other fields and their hash. Checked for its
 * id, its size and, when the model has a schema, the schema (the first mismatch named by field).
 */
export function prepareRecord(record: unknown, index: number, model: string, schema?: JsonSchema): PreparedRecord {
  const id = recordId(record, index, model);
  if (schema) {
    const issue = schemaIssues(schema, record)[0];
    if (issue) {
      const field = issue.path.length ? `field ${issue.path.join(".")}` : "the record";
      throw new RecordsError(
        "invalid_record",
        `record ${JSON.stringify(id)} does not fit model ${model}: ${field} ${issue.message}`,
      );
    }
  }
  const { id: _id, ...rest } = record as Record<string, unknown>;
  const data = JSON.stringify(rest);
  // A UTF-16 unit is at most 3 bytes of UTF-8: short texts need no count.
  if ((data.length + id.length) * 3 > RECORD_LIMITS.maxRecordBytes) {
    const bytes = Buffer.byteLength(data) + Buffer.byteLength(id);
    if (bytes > RECORD_LIMITS.maxRecordBytes) {
      throw new RecordsError(
        "record_too_large",
        `record ${JSON.stringify(id)} of model ${model} is ${bytes} bytes, at most ${RECORD_LIMITS.maxRecordBytes}`,
        413,
      );
    }
  }
  return { id, data, hash: hashData(data) };
}

/** The payload hash: a save of identical data writes nothing. */
export function hashData(data: string): string {
  return new Bun.CryptoHasher("sha1").update(data).digest("base64");
}
