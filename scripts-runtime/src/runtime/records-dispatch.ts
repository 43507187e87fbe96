import { z } from "zod";
import type { JsonValue } from "./run-types.ts";
import { type MergingStrategy, type ScriptHost, ScriptHostError } from "./script-host.ts";

const model = z.string().min(1).max(255);
const records = z.array(z.unknown());
const checkpoint = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

/**
 * The parent's check of the record API's arguments: their shape only. The records themselves (ids,
 * sizes, the model's schema) are checked by the host, which names the record at fault.
 */
export const RECORD_SIGNATURES = {
  batchSave: z.tuple([records, model]),
  batchUpdate: z.tuple([records, model]),
  batchDelete: z.tuple([records, model]),
  getRecordsByIds: z.tuple([z.array(z.union([z.string(), z.number()])), model]),
  trackDeletesStart: z.tuple([model]),
  trackDeletesEnd: z.tuple([model]),
  deleteRecordsFromPreviousExecutions: z.tuple([model]),
  setMergingStrategy: z.tuple([z.strictObject({ strategy: z.enum(["override", "ignore_if_modified_after"]) }), model]),
  getCheckpoint: z.tuple([]),
  saveCheckpoint: z.tuple([checkpoint]),
  clearCheckpoint: z.tuple([]),
  getEnvironmentVariables: z.tuple([]),
  getPagination: z.tuple([]),
} as const;

type RecordMethod = keyof typeof RECORD_SIGNATURES;

/** Runs one record API call on the host's records part (refused where the host has none). */
export async function dispatchRecordsCall(host: ScriptHost, method: RecordMethod, args: unknown[]): Promise<JsonValue> {
  const r = host.records;
  if (!r) throw new ScriptHostError(`nango.${method} is not available here`, 503, null, "unavailable");
  const m = args[args.length - 1] as string;
  switch (method) {
    case "batchSave":
      await r.batchSave(args[0] as unknown[], m);
      return true;
    case "batchUpdate":
      await r.batchUpdate(args[0] as unknown[], m);
      return true;
    case "batchDelete":
      await r.batchDelete(args[0] as unknown[], m);
      return true;
    case "getRecordsByIds":
      return r.getRecordsByIds(args[0] as (string | number)[], m);
    case "trackDeletesStart":
      await r.trackDeletesStart(m);
      return null;
    case "trackDeletesEnd":
      return r.trackDeletesEnd(m);
    case "deleteRecordsFromPreviousExecutions":
      return r.deleteRecordsFromPreviousExecutions(m);
    case "setMergingStrategy":
      await r.setMergingStrategy((args[0] as { strategy: MergingStrategy }).strategy, m);
      return null;
    case "getCheckpoint":
      return r.getCheckpoint();
    case "saveCheckpoint":
      await r.saveCheckpoint(args[0] as Record<string, string | number | boolean>);
      return null;
    case "clearCheckpoint":
      await r.clearCheckpoint();
      return null;
    case "getEnvironmentVariables":
      return r.getEnvironmentVariables();
    case "getPagination":
      return r.getPagination();
  }
}
