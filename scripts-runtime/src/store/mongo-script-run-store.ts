import type { Collection, Db, Filter, MongoClient } from "mongodb";
import type { ScriptEntry } from "../declaration/script-declaration.ts";
import type { LogEntry } from "../runtime/run-types.ts";
import { capLogs, DEFAULT_STORED_LOG_BYTES } from "./cap-logs.ts";
import { connectMongo } from "./mongo-connect.ts";
import {
  pageSize,
  type RunFilter,
  type RunCaller,
  type RunFinish,
  type RunTrigger,
  type ScriptRunRecord,
  type StoredRunStatus,
} from "./records.ts";
import type { ScriptRunStore } from "./stores.ts";

/** A run; `error`, `output` and `input` as JSON text, since they may have keys MongoDB refuses. */
interface RunDocument {
  _id: string;
  environmentId: string;
  providerConfigKey: string;
  scriptName: string;
  scriptVersion: number;
  connectionId: string | null;
  trigger: string;
  entry: string;
  attempt: number;
  status: string;
  startedAt: number;
  finishedAt: number | null;
  durationMs: number | null;
  logs: LogEntry[];
  logsTruncated: boolean;
  error: string | null;
  output?: string;
  input?: string;
  caller?: RunCaller;
}

/** Script runs on MongoDB, newest first by `_id` (run ids sort by creation time). */
export class MongoScriptRunStore implements ScriptRunStore {
  private readonly runs: Collection<RunDocument>;

  constructor(
    db: Db,
    private readonly client: MongoClient | null = null,
    private readonly maxLogBytes = DEFAULT_STORED_LOG_BYTES,
  ) {
    this.runs = db.collection("script_runs");
  }

  /** Connects to `url`, uses database `dbName`, creates the indexes; `close` closes the client. */
  static async connect(url: string, dbName: string, maxLogBytes?: number): Promise<MongoScriptRunStore> {
    return connectMongo(url, dbName, async (db, client) => {
      const store = new MongoScriptRunStore(db, client, maxLogBytes);
      await store.createIndexes();
      return store;
    });
  }

  async createIndexes(): Promise<void> {
    await this.runs.createIndexes([
      { key: { environmentId: 1, _id: -1 }, name: "newest" },
      { key: { environmentId: 1, providerConfigKey: 1, scriptName: 1, _id: -1 }, name: "by_script" },
      { key: { environmentId: 1, connectionId: 1, _id: -1 }, name: "by_connection" },
      { key: { finishedAt: 1 }, name: "by_finish", partialFilterExpression: { finishedAt: { $gte: 0 } } },
    ]);
  }

  async insert(run: ScriptRunRecord): Promise<void> {
    const logs = capLogs(run.logs, this.maxLogBytes);
    await this.runs.insertOne({
      _id: run.id,
      environmentId: run.environmentId,
      providerConfigKey: run.providerConfigKey,
      scriptName: run.scriptName,
      scriptVersion: run.scriptVersion,
      connectionId: run.connectionId,
      trigger: run.trigger,
      entry: run.entry,
      attempt: run.attempt,
      status: run.status,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      durationMs: run.durationMs,
      logs: logs.logs,
      logsTruncated: run.logsTruncated || logs.truncated,
      error: run.error ? JSON.stringify(run.error) : null,
      ...(run.input === undefined ? {} : { input: JSON.stringify(run.input) }),
      ...(run.caller ? { caller: run.caller } : {}),
    });
  }

  async finish(environmentId: string, id: string, finish: RunFinish): Promise<ScriptRunRecord | null> {
    const logs = capLogs(finish.logs, this.maxLogBytes);
    const doc = await this.runs.findOneAndUpdate(
      {
        _id: id,
        environmentId,
        status: "running",
        ...(finish.attempt === undefined ? {} : { attempt: { $lte: finish.attempt } }),
      },
      {
        $set: {
          status: finish.status,
          finishedAt: finish.finishedAt,
          durationMs: finish.durationMs,
          logs: logs.logs,
          logsTruncated: finish.logsTruncated || logs.truncated,
          error: finish.error ? JSON.stringify(finish.error) : null,
          ...(finish.output === undefined ? {} : { output: JSON.stringify(finish.output) }),
          ...(finish.attempt === undefined ? {} : { attempt: finish.attempt }),
        },
      },
      { returnDocument: "after" },
    );
    return doc ? fromDocument(doc) : null;
  }

  async claimAttempt(environmentId: string, id: string, attempt: number): Promise<boolean> {
    const result = await this.runs.updateOne(
      { _id: id, environmentId, status: "running", attempt: { $lt: attempt } },
      { $set: { attempt } },
    );
    return result.modifiedCount > 0;
  }

  async get(environmentId: string, id: string): Promise<ScriptRunRecord | null> {
    const doc = await this.runs.findOne({ _id: id, environmentId });
    return doc ? fromDocument(doc) : null;
  }

  async list(environmentId: string, filter: RunFilter = {}): Promise<ScriptRunRecord[]> {
    const query: Filter<RunDocument> = { environmentId };
    if (filter.providerConfigKey !== undefined) query.providerConfigKey = filter.providerConfigKey;
    if (filter.scriptName !== undefined) query.scriptName = filter.scriptName;
    if (filter.connectionId !== undefined) query.connectionId = filter.connectionId;
    if (filter.status !== undefined) query.status = filter.status;
    if (filter.trigger !== undefined) query.trigger = filter.trigger;
    if (filter.before !== undefined) query._id = { $lt: filter.before };
    const docs = await this.runs.find(query).sort({ _id: -1 }).limit(pageSize(filter.limit)).toArray();
    return docs.map(fromDocument);
  }

  async deleteFinishedBefore(before: number): Promise<number> {
    // $lt with a number matches numbers only: unfinished runs (null) are never deleted.
    return (await this.runs.deleteMany({ finishedAt: { $lt: before } })).deletedCount;
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}

function fromDocument(doc: RunDocument): ScriptRunRecord {
  return {
    id: doc._id,
    environmentId: doc.environmentId,
    providerConfigKey: doc.providerConfigKey,
    scriptName: doc.scriptName,
    scriptVersion: doc.scriptVersion,
    connectionId: doc.connectionId,
    trigger: doc.trigger as RunTrigger,
    entry: doc.entry as ScriptEntry,
    attempt: doc.attempt,
    status: doc.status as StoredRunStatus,
    startedAt: doc.startedAt,
    finishedAt: doc.finishedAt,
    durationMs: doc.durationMs,
    logs: doc.logs.map(({ level, message, at }) => ({ level, message, at })),
    logsTruncated: doc.logsTruncated,
    error: doc.error === null ? null : JSON.parse(doc.error),
    ...(doc.output === undefined ? {} : { output: JSON.parse(doc.output) }),
    ...(doc.input === undefined ? {} : { input: JSON.parse(doc.input) }),
    ...(doc.caller === undefined ? {} : { caller: callerOf(doc.caller) }),
  };
}

/** The caller as written: only its own fields, in the record's shape. */
function callerOf(c: RunCaller): RunCaller {
  return {
    kind: c.kind,
    name: c.name,
    ...(c.keyId === undefined ? {} : { keyId: c.keyId }),
    ...(c.clientId === undefined ? {} : { clientId: c.clientId }),
    ...(c.endUserId === undefined ? {} : { endUserId: c.endUserId }),
  };
}
