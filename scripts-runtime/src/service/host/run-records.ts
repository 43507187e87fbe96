import type { JsonSchema } from "../../declaration/script-declaration.ts";
import { RecordsError } from "../../records/record-errors.ts";
import type { RecordScope, RecordStore, WriteCounts } from "../../records/record-store.ts";
import type { JsonValue } from "../../runtime/run-types.ts";
import { type RecordsHost, ScriptHostError } from "../../runtime/script-host.ts";
import { RunRecordBook } from "./run-record-book.ts";

/** What a run's record API needs. */
export interface RunRecordsDeps {
  store: RecordStore;
  now: () => number;
  scope: Omit<RecordScope, "model">;
  syncName: string;
  /** The sync's models and their JSON Schemas; null when it declares none (any model, unchecked). */
  models: Record<string, JsonSchema> | null;
  startedAt: number;
  maxRecordsPerRun: number;
  pagination: () => Promise<JsonValue>;
  environmentVariables: { name: string; value: string }[];
  /** The run resumes one stopped from outside: deletion tracking continues that run's phase. */
  resuming?: boolean;
}

/** The record API of one run, and what it changed per model (for the sync webhook). */
export interface RunRecords extends RecordsHost {
  changes(): Map<string, WriteCounts>;
}

/**
 * Nango's record API for one run (see RunRecordBook): the record calls, the sync's checkpoint,
 * its environment variables and pagination.
 */
export function createRunRecords(deps: RunRecordsDeps): RunRecords {
  const book = new RunRecordBook(deps);
  const host: RunRecords = {
    changes: () => book.changes,
    batchSave: (records, model) => book.save(records, model, "batchSave"),
    batchUpdate: (records, model) => book.update(records, model, "batchUpdate"),
    batchDelete: (records, model) => book.delete(records, model, "batchDelete"),
    getRecordsByIds: (ids, model) => book.byIds(ids, model, "getRecordsByIds"),
    trackDeletesStart: (model) => book.startTracking(model, "trackDeletesStart"),
    trackDeletesEnd: (model) => book.endTracking(model, "trackDeletesEnd"),
    deleteRecordsFromPreviousExecutions: (model) => book.endTracking(model, "deleteRecordsFromPreviousExecutions"),
    async setMergingStrategy(strategy, model) {
      book.setStrategy(strategy, model, "setMergingStrategy");
    },
    getCheckpoint: () => deps.store.getCheckpoint(checkpointKey(deps)),
    saveCheckpoint: (checkpoint) => deps.store.saveCheckpoint(checkpointKey(deps), checkpoint, deps.now()),
    clearCheckpoint: () => deps.store.clearCheckpoint(checkpointKey(deps)),
    getEnvironmentVariables: async () => deps.environmentVariables,
    getPagination: () => deps.pagination(),
  };
  return withScriptErrors(host);
}

const checkpointKey = (deps: RunRecordsDeps) => ({ ...deps.scope, syncName: deps.syncName });

/** A RecordsError reaches the script as a ScriptApiError with its status and code. */
function withScriptErrors(host: RunRecords): RunRecords {
  const wrapped = { ...host };
  for (const key of Object.keys(host) as (keyof RunRecords)[]) {
    const fn = host[key] as (...args: unknown[]) => unknown;
    if (key === "changes") continue;
    (wrapped as Record<string, unknown>)[key] = async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        if (err instanceof RecordsError) {
          throw new ScriptHostError(
            err.message,
            err.status,
            { error: { code: err.code, message: err.message } },
            err.code,
          );
        }
        throw err;
      }
    };
  }
  return wrapped;
}
