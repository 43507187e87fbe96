import type { Operation } from "@junction/platform/operations/operation";
import { type Collection, type Filter, MongoClient } from "mongodb";
import {
  type OperationFilter,
  type OperationPosition,
  type OperationStore,
  type RetentionBounds,
  searchWords,
} from "./operation-store.ts";
import { searchText } from "./sqlite-operation-store.ts";

/** An operation's document: the operation, its arrival order and the words search reads. */
interface OperationDoc extends Operation {
  _id: string;
  seq: number;
  words: string[];
}

function escapeRegex(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The operations log on MongoDB. Search matches each word as a prefix of a word of the messages,
 * as SQLite's FTS5 does: a multikey index over the words (a text index matches whole stems only).
 */
export class MongoOperationStore implements OperationStore {
  private seq = Date.now() * 1000;

  private constructor(
    private readonly client: MongoClient,
    private readonly ops: Collection<OperationDoc>,
  ) {}

  static async connect(url: string, database: string): Promise<MongoOperationStore> {
    const client = await MongoClient.connect(url);
    const ops = client.db(database).collection<OperationDoc>("operations");
    await ops.createIndexes([
      { key: { startedAtMs: -1, _id: -1 } },
      { key: { kind: 1, startedAtMs: -1 } },
      { key: { status: 1, startedAtMs: -1 } },
      { key: { integration: 1, connection: 1, startedAtMs: -1 } },
      { key: { connection: 1, startedAtMs: -1 } },
      { key: { endUser: 1, startedAtMs: -1 } },
      { key: { tags: 1, startedAtMs: -1 } },
      { key: { words: 1 } },
      { key: { seq: -1 } },
    ]);
    return new MongoOperationStore(client, ops);
  }

  async insert(batch: Operation[]): Promise<void> {
    if (batch.length === 0) return;
    const docs = batch.map((op) => ({
      ...op,
      _id: op.id,
      seq: this.seq++,
      words: [...new Set(searchWords(searchText(op)))],
    }));
    try {
      await this.ops.insertMany(docs, { ordered: false });
    } catch (err) {
      // An id stored already (a batch carried twice) is skipped; anything else is a failure.
      const writeErrors = (err as { writeErrors?: { code: number }[] }).writeErrors;
      if (!writeErrors || writeErrors.some((e) => e.code !== 11000)) throw err;
    }
  }

  async list(filter: OperationFilter, limit: number, after?: OperationPosition): Promise<Operation[]> {
    const and: Filter<OperationDoc>[] = [];
    if (filter.kind !== undefined) and.push({ kind: filter.kind });
    if (filter.status !== undefined) and.push({ status: filter.status });
    if (filter.integration !== undefined) and.push({ integration: filter.integration });
    if (filter.connection !== undefined) and.push({ connection: filter.connection });
    if (filter.endUser !== undefined) and.push({ endUser: filter.endUser });
    if (filter.tag !== undefined) and.push({ tags: filter.tag });
    if (filter.fromMs !== undefined) and.push({ startedAtMs: { $gte: filter.fromMs } });
    if (filter.toMs !== undefined) and.push({ startedAtMs: { $lt: filter.toMs } });
    const words = filter.q === undefined ? [] : searchWords(filter.q);
    if (words.length > 0) and.push({ words: { $all: words.map((w) => new RegExp(`^${escapeRegex(w)}`)) } });
    if (after) {
      and.push({
        $or: [{ startedAtMs: { $lt: after.startedAtMs } }, { startedAtMs: after.startedAtMs, _id: { $lt: after.id } }],
      });
    }
    const docs = await this.ops
      .find(and.length ? { $and: and } : {})
      .sort({ startedAtMs: -1, _id: -1 })
      .limit(limit)
      .toArray();
    return docs.map(toOperation);
  }

  async get(id: string): Promise<Operation | undefined> {
    const doc = await this.ops.findOne({ _id: id });
    return doc ? toOperation(doc) : undefined;
  }

  async prune(bounds: RetentionBounds, nowMs: number): Promise<number> {
    let removed = (await this.ops.deleteMany({ startedAtMs: { $lt: nowMs - bounds.maxAgeMs } })).deletedCount;
    const over = await this.ops
      .find({}, { projection: { seq: 1 } })
      .sort({ seq: -1 })
      .skip(bounds.maxCount)
      .limit(1)
      .next();
    if (over) removed += (await this.ops.deleteMany({ seq: { $lte: over.seq } })).deletedCount;
    return removed;
  }

  count(): Promise<number> {
    return this.ops.countDocuments();
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

function toOperation(doc: OperationDoc): Operation {
  const { _id, seq, words, totals, ...op } = doc;
  // The driver may store an absent field as null: an operation of one call has no totals.
  return totals ? { ...op, totals } : op;
}
