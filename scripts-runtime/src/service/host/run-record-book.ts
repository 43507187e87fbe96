import { deepMerge } from "../../records/deep-merge.ts";
import { checkBatchSize, prepareRecord, recordId } from "../../records/prepare-records.ts";
import { recordPayload } from "../../records/present-records.ts";
import { RecordsError } from "../../records/record-errors.ts";
import type { RecordScope, SaveOptions, WriteCounts } from "../../records/record-store.ts";
import type { JsonValue } from "../../runtime/run-types.ts";
import type { MergingStrategy } from "../../runtime/script-host.ts";
import type { RunRecordsDeps } from "./run-records.ts";

/** Keys of deleted records answered by trackDeletesEnd (the count is exact; the list stops there). */
const MAX_DELETED_KEYS = 10_000;

/**
 * One run's record writes: checks each record (id, size, the model's schema) before anything of its
 * batch is written, bounds the records of a run, keeps deletion tracking and the merging strategy per
 * model, and sums what each call changed. `what` names the script API call, for its errors.
 */
export class RunRecordBook {
  /** What the run changed per model (for the sync webhook). */
  readonly changes = new Map<string, WriteCounts>();
  private readonly marks = new Map<string, number>();
  private readonly strategies = new Map<string, MergingStrategy>();
  private written = 0;

  constructor(private readonly deps: RunRecordsDeps) {}

  async save(records: unknown[], model: string, what: string): Promise<void> {
    const scope = this.scopeOf(model, what);
    this.count(records.length, what);
    const schema = this.deps.models?.[model];
    const prepared = records.map((r, i) => prepareRecord(r, i, model, schema));
    await this.tracked(scope);
    this.sum(model, await this.deps.store.save(scope, prepared, this.options(model)));
  }

  /** Deep-merges each record into the stored one of its id; ids not stored are left alone. */
  async update(records: unknown[], model: string, what: string): Promise<void> {
    const scope = this.scopeOf(model, what);
    this.count(records.length, what);
    const updates = new Map<string, unknown>();
    records.forEach((r, i) => {
      const id = recordId(r, i, model);
      if (!updates.has(id)) updates.set(id, r);
    });
    await this.tracked(scope);
    const build = (id: string, existing: string | null) => {
      if (existing === null) return null;
      const merged = deepMerge({ ...(JSON.parse(existing) as object), id }, updates.get(id));
      // The merged record must still fit the model, as a saved one must.
      return prepareRecord(merged, 0, model, this.deps.models?.[model]);
    };
    this.sum(model, await this.deps.store.update(scope, [...updates.keys()], build, this.options(model)));
  }

  async delete(records: unknown[], model: string, what: string): Promise<void> {
    const scope = this.scopeOf(model, what);
    this.count(records.length, what);
    const ids = records.map((r, i) => recordId(r, i, model));
    this.sum(model, await this.deps.store.delete(scope, ids, this.deps.now()));
  }

  async byIds(ids: (string | number)[], model: string, what: string): Promise<[string, JsonValue][]> {
    const scope = this.scopeOf(model, what);
    checkBatchSize(ids.length, `nango.${what}`);
    const found = await this.deps.store.getByIds(scope, [...new Set(ids.map(String))]);
    return found.map((r) => [r.id, recordPayload(r) as JsonValue]);
  }

  async startTracking(model: string, what: string): Promise<void> {
    await this.tracked(this.scopeOf(model, what));
  }

  /** Ends deletion tracking of a model: the records the run did not write since its start are deleted. */
  async endTracking(model: string, what: string): Promise<{ deletedKeys: string[] }> {
    const scope = this.scopeOf(model, what);
    const mark = this.marks.get(model);
    if (mark === undefined) {
      throw new RecordsError("delete_tracking_not_started", `nango.${what}(${model}): call trackDeletesStart first`);
    }
    this.marks.delete(model);
    const ended = await this.deps.store.endDeleteTracking(scope, mark, this.deps.now(), MAX_DELETED_KEYS);
    this.sum(model, { added: 0, updated: 0, deleted: ended.count, unchanged: 0 });
    return { deletedKeys: ended.ids };
  }

  setStrategy(strategy: MergingStrategy, model: string, what: string): void {
    this.scopeOf(model, what);
    this.strategies.set(model, strategy);
  }

  private scopeOf(model: string, what: string): RecordScope {
    const { models } = this.deps;
    if (models && !Object.hasOwn(models, model)) {
      const known = Object.keys(models).join(", ") || "none";
      throw new RecordsError("unknown_model", `nango.${what}: model ${model} is not one of the sync's (${known})`);
    }
    return { ...this.deps.scope, model };
  }

  private count(n: number, what: string): void {
    checkBatchSize(n, `nango.${what}`);
    if (this.written + n > this.deps.maxRecordsPerRun) {
      throw new RecordsError(
        "too_many_records",
        `nango.${what}: a run writes at most ${this.deps.maxRecordsPerRun} records (JUNCTION_SCRIPTS_MAX_RECORDS_PER_RUN)`,
        413,
      );
    }
    this.written += n;
  }

  private sum(model: string, c: WriteCounts): void {
    const prev = this.changes.get(model) ?? { added: 0, updated: 0, deleted: 0, unchanged: 0 };
    this.changes.set(model, {
      added: prev.added + c.added,
      updated: prev.updated + c.updated,
      deleted: prev.deleted + c.deleted,
      unchanged: prev.unchanged + c.unchanged,
    });
  }

  /** Every model a run writes is tracked from its first write (deleteRecordsFromPreviousExecutions). */
  private async tracked(scope: RecordScope): Promise<void> {
    if (!this.marks.has(scope.model)) {
      this.marks.set(scope.model, await this.deps.store.beginDeleteTracking(scope, this.deps.resuming === true));
    }
  }

  private options(model: string): SaveOptions {
    return {
      now: this.deps.now(),
      keepModifiedAfter: this.strategies.get(model) === "ignore_if_modified_after" ? this.deps.startedAt : null,
    };
  }
}
