import type { JsonSchema } from "../../declaration/script-declaration.ts";
import { deepMerge } from "../../records/deep-merge.ts";
import { checkBatchSize, prepareRecord, recordId } from "../../records/prepare-records.ts";
import { recordPayload } from "../../records/present-records.ts";
import { RecordsError } from "../../records/record-errors.ts";
import type { RecordScope, RecordStore, WriteCounts } from "../../records/record-store.ts";
import type { JsonValue } from "../../runtime/run-types.ts";
import { type MergingStrategy, type RecordsHost, ScriptHostError } from "../../runtime/script-host.ts";

/** Keys of deleted records answered by trackDeletesEnd (the count is exact; the list stops there). */
const MAX_DELETED_KEYS = 10_000;

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
 * Nango's record API for one run: checks each record (id, size, the model's
 * schema) before anything of its batch is written, bounds the records of a run, keeps deletion
 * tracking and the merging strategy per model, and sums what each call changed.
 */
export function createRunRecords(deps: RunRecordsDeps): RunRecords {
  const changes = new Map<string, WriteCounts>();
  const marks = new Map<string, number>();
  const strategies = new Map<string, MergingStrategy>();
  let written = 0;

  const scopeOf = (model: string, what: string): RecordScope => {
    if (deps.models && !Object.hasOwn(deps.models, model)) {
      const known = Object.keys(deps.models).join(", ") || "none";
      throw new RecordsError("unknown_model", `nango.${what}: model ${model} is not one of the sync's (${known})`);
    }
    return { ...deps.scope, model };
  };
  const count = (n: number, what: string) => {
    checkBatchSize(n, `nango.${what}`);
    if (written + n > deps.maxRecordsPerRun) {
      throw new RecordsError(
        "too_many_records",
        `nango.${what}: a run writes at most ${deps.maxRecordsPerRun} records (JUNCTION_SCRIPTS_MAX_RECORDS_PER_RUN)`,
        413,
      );
    }
    written += n;
  };
  const sum = (model: string, c: WriteCounts) => {
    const prev = changes.get(model) ?? { added: 0, updated: 0, deleted: 0, unchanged: 0 };
    changes.set(model, {
      added: prev.added + c.added,
      updated: prev.updated + c.updated,
      deleted: prev.deleted + c.deleted,
      unchanged: prev.unchanged + c.unchanged,
    });
  };
  /** Every model a run writes is tracked from its first write (deleteRecordsFromPreviousExecutions). */
  const tracked = async (scope: RecordScope) => {
    if (!marks.has(scope.model)) {
      marks.set(scope.model, await deps.store.beginDeleteTracking(scope, deps.resuming === true));
    }
  };
  const options = (model: string) => ({
    now: deps.now(),
    keepModifiedAfter: strategies.get(model) === "ignore_if_modified_after" ? deps.startedAt : null,
  });
  const endTracking = async (model: string, what: string) => {
    const scope = scopeOf(model, what);
    const mark = marks.get(model);
    if (mark === undefined) {
      throw new RecordsError("delete_tracking_not_started", `nango.${what}(${model}): call trackDeletesStart first`);
    }
    marks.delete(model);
    const ended = await deps.store.endDeleteTracking(scope, mark, deps.now(), MAX_DELETED_KEYS);
    sum(model, { added: 0, updated: 0, deleted: ended.count, unchanged: 0 });
    return { deletedKeys: ended.ids };
  };

  const host: RunRecords = {
    changes: () => changes,
    async batchSave(records, model) {
      const scope = scopeOf(model, "batchSave");
      count(records.length, "batchSave");
      const schema = deps.models?.[model];
      const prepared = records.map((r, i) => prepareRecord(r, i, model, schema));
      await tracked(scope);
      sum(model, await deps.store.save(scope, prepared, options(model)));
    },
    async batchUpdate(records, model) {
      const scope = scopeOf(model, "batchUpdate");
      count(records.length, "batchUpdate");
      const updates = new Map<string, unknown>();
      records.forEach((r, i) => {
        const id = recordId(r, i, model);
        if (!updates.has(id)) updates.set(id, r);
      });
      await tracked(scope);
      const build = (id: string, existing: string | null) => {
        if (existing === null) return null;
        const merged = deepMerge({ ...(JSON.parse(existing) as object), id }, updates.get(id));
        // The merged record must still fit the model, as a saved one must.
        return prepareRecord(merged, 0, model, deps.models?.[model]);
      };
      sum(model, await deps.store.update(scope, [...updates.keys()], build, options(model)));
    },
    async batchDelete(records, model) {
      const scope = scopeOf(model, "batchDelete");
      count(records.length, "batchDelete");
      const ids = records.map((r, i) => recordId(r, i, model));
      sum(model, await deps.store.delete(scope, ids, deps.now()));
    },
    async getRecordsByIds(ids, model) {
      const scope = scopeOf(model, "getRecordsByIds");
      checkBatchSize(ids.length, "nango.getRecordsByIds");
      const found = await deps.store.getByIds(scope, [...new Set(ids.map(String))]);
      return found.map((r) => [r.id, recordPayload(r) as JsonValue]);
    },
    async trackDeletesStart(model) {
      await tracked(scopeOf(model, "trackDeletesStart"));
    },
    trackDeletesEnd: (model) => endTracking(model, "trackDeletesEnd"),
    deleteRecordsFromPreviousExecutions: (model) => endTracking(model, "deleteRecordsFromPreviousExecutions"),
    async setMergingStrategy(strategy, model) {
      scopeOf(model, "setMergingStrategy");
      strategies.set(model, strategy);
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
