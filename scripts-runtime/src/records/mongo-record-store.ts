import { randomBytes } from "node:crypto";
import { Binary, type ClientSession, type Collection, type Db, type Filter, type MongoClient } from "mongodb";
import { type RecordDoc, recordDocWrite } from "./mongo-record-doc.ts";
import { MongoRecordRetention } from "./mongo-record-retention.ts";
import { type ExistingRecord, planSave, uniqueById } from "./plan-writes.ts";
import type {
  Checkpoint,
  CheckpointKey,
  ConnectionScope,
  ListQuery,
  ModelSummary,
  PreparedRecord,
  RecordScope,
  RecordStore,
  SaveOptions,
  StoredRecord,
  UpdateRecord,
  WriteCounts,
} from "./record-store.ts";

interface PartitionDoc extends RecordScope {
  _id: string;
  secret: Binary;
  nextSeq: number;
  lastModifiedAt: number;
  mark: number;
  count: number;
}

interface CheckpointDoc {
  _id: string;
  checkpoint: string;
  updatedAt: number;
}

const DELETE_CHUNK = 5_000;
const partitionId = (s: RecordScope) =>
  JSON.stringify([s.environmentId, s.providerConfigKey, s.connectionId, s.model, s.variant]);
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const checkpointId = (k: CheckpointKey) =>
  JSON.stringify([k.environmentId, k.providerConfigKey, k.connectionId, k.syncName, k.variant]);

/**
 * The records store on MongoDB (the distributed topology). A batch is one multi-document transaction
 * when the server runs them (a replica set, as docker-compose.yml starts it); the partition's sequence
 * counter is written in it, so that concurrent writers to one partition commit in sequence order.
 */
export class MongoRecordStore implements RecordStore {
  private readonly partitions: Collection<PartitionDoc>;
  private readonly records: Collection<RecordDoc>;
  private readonly checkpoints: Collection<CheckpointDoc>;
  readonly retention: MongoRecordRetention;

  private constructor(
    private readonly client: MongoClient,
    db: Db,
    private readonly transactions: boolean,
    private readonly ownsClient: boolean,
  ) {
    this.partitions = db.collection("record_partitions");
    this.records = db.collection("records");
    this.checkpoints = db.collection("sync_checkpoints");
    this.retention = new MongoRecordRetention(db);
  }

  /** The store on `db` of a connected client; indexes created. */
  static async open(client: MongoClient, db: Db, ownsClient = false): Promise<MongoRecordStore> {
    const hello = await db.admin().command({ hello: 1 });
    const transactions = typeof hello.setName === "string" || hello.msg === "isdbgrid";
    const store = new MongoRecordStore(client, db, transactions, ownsClient);
    await Promise.all([
      store.records.createIndexes([
        { key: { p: 1, id: 1 }, unique: true, name: "by_id" },
        { key: { p: 1, seq: 1 }, unique: true, name: "by_seq" },
        { key: { p: 1, lastModifiedAt: 1 }, name: "by_modified" },
      ]),
      store.partitions.createIndex(
        { environmentId: 1, providerConfigKey: 1, connectionId: 1, model: 1 },
        { name: "by_connection" },
      ),
    ]);
    return store;
  }

  async save(scope: RecordScope, records: PreparedRecord[], options: SaveOptions): Promise<WriteCounts> {
    return this.atomically((session) => this.saveIn(session, scope, records, options));
  }

  async update(scope: RecordScope, ids: string[], build: UpdateRecord, options: SaveOptions): Promise<WriteCounts> {
    return this.atomically(async (session) => {
      const found = await this.byIds(partitionId(scope), ids, session);
      const current = new Map(found.map((r) => [r.id, r.data ?? "{}"]));
      const built: PreparedRecord[] = [];
      for (const id of new Set(ids)) {
        const next = build(id, current.get(id) ?? null);
        if (next) built.push(next);
      }
      return this.saveIn(session, scope, built, options);
    });
  }

  async delete(scope: RecordScope, ids: string[], now: number): Promise<WriteCounts> {
    return this.atomically(async (session) => {
      const counts: WriteCounts = { added: 0, updated: 0, deleted: 0, unchanged: 0 };
      const p = partitionId(scope);
      const live = (await this.byIds(p, ids, session))
        .filter((r) => r.action !== "DELETED")
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      if (live.length === 0) return counts;
      counts.deleted = await this.markDeleted(
        session,
        p,
        live.map((r) => r.id),
        now,
      );
      return counts;
    });
  }

  async getByIds(scope: RecordScope, ids: string[]): Promise<StoredRecord[]> {
    return (await this.byIds(partitionId(scope), ids)).map(toStored);
  }

  async list(scope: RecordScope, query: ListQuery) {
    const filter: Filter<RecordDoc> = { p: partitionId(scope), seq: { $gt: query.afterSeq ?? 0 } };
    if (query.modifiedAfter !== null) filter.lastModifiedAt = { $gte: query.modifiedAfter };
    if (query.actions) filter.action = { $in: query.actions };
    if (query.ids) filter.id = { $in: query.ids };
    const docs = await this.records
      .find(filter)
      .sort({ seq: 1 })
      .limit(query.limit + 1)
      .toArray();
    const hasMore = docs.length > query.limit;
    if (hasMore) docs.pop();
    return { records: docs.map(toStored), hasMore };
  }

  async prune(scope: RecordScope, untilSeq: number, limit: number, now: number) {
    return this.atomically(async (session) => {
      const p = partitionId(scope);
      const docs = await this.records
        .find({ p, seq: { $lte: untilSeq }, prunedAt: null }, { session, projection: { id: 1 } })
        .sort({ seq: 1 })
        .limit(limit + 1)
        .toArray();
      const hasMore = docs.length > limit;
      if (hasMore) docs.pop();
      if (docs.length) {
        await this.records.updateMany(
          { p, id: { $in: docs.map((d) => d.id) } },
          { $set: { data: null, prunedAt: now } },
          { session },
        );
      }
      return { count: docs.length, hasMore };
    });
  }

  async secret(scope: RecordScope): Promise<Uint8Array | null> {
    const found = await this.partitions.findOne({ _id: partitionId(scope) });
    return found ? new Uint8Array(found.secret.buffer) : null;
  }

  async beginDeleteTracking(scope: RecordScope, continuing = false): Promise<number> {
    const partition = await this.ensurePartition(scope);
    if (continuing && partition.mark > 0) return partition.mark;
    const after = await this.partitions.findOneAndUpdate(
      { _id: partitionId(scope) },
      { $inc: { mark: 1 } },
      { returnDocument: "after" },
    );
    return after?.mark ?? 1;
  }

  async endDeleteTracking(scope: RecordScope, mark: number, now: number, maxIds: number) {
    const p = partitionId(scope);
    const ids: string[] = [];
    let count = 0;
    for (;;) {
      const done = await this.atomically(async (session) => {
        const stale = await this.records
          .find({ p, seenMark: { $lt: mark }, action: { $ne: "DELETED" } }, { session, projection: { id: 1 } })
          .sort({ id: 1 })
          .limit(DELETE_CHUNK)
          .toArray();
        if (stale.length === 0) return 0;
        const staleIds = stale.map((d) => d.id);
        for (const id of staleIds) if (ids.length < maxIds) ids.push(id);
        return this.markDeleted(session, p, staleIds, now);
      });
      count += done;
      if (done < DELETE_CHUNK) return { count, ids };
    }
  }

  async models(scope: ConnectionScope): Promise<ModelSummary[]> {
    const docs = await this.partitions
      .find({
        environmentId: scope.environmentId,
        providerConfigKey: scope.providerConfigKey,
        connectionId: scope.connectionId,
      })
      .sort({ model: 1, variant: 1 })
      .toArray();
    return docs.map((d) => ({ model: d.model, variant: d.variant, count: d.count, lastModifiedAt: d.lastModifiedAt }));
  }

  async clear(scope: ConnectionScope, which?: { model: string; variant: string }): Promise<number> {
    const filter: Filter<PartitionDoc> = {
      environmentId: scope.environmentId,
      providerConfigKey: scope.providerConfigKey,
      connectionId: scope.connectionId,
      ...(which ? { model: which.model, variant: which.variant } : {}),
    };
    const parts = await this.partitions.find(filter, { projection: { _id: 1 } }).toArray();
    let removed = 0;
    for (const { _id } of parts) {
      removed += (await this.records.deleteMany({ p: _id })).deletedCount;
      await this.partitions.deleteOne({ _id });
    }
    return removed;
  }

  async forgetConnection(scope: ConnectionScope): Promise<number> {
    const removed = await this.clear(scope);
    const prefix = JSON.stringify([scope.environmentId, scope.providerConfigKey, scope.connectionId]).slice(0, -1);
    await this.checkpoints.deleteMany({ _id: { $regex: `^${escapeRegex(prefix)},` } });
    return removed;
  }

  async getCheckpoint(key: CheckpointKey): Promise<Checkpoint | null> {
    const doc = await this.checkpoints.findOne({ _id: checkpointId(key) });
    return doc ? (JSON.parse(doc.checkpoint) as Checkpoint) : null;
  }

  async saveCheckpoint(key: CheckpointKey, checkpoint: Checkpoint, now: number): Promise<void> {
    await this.checkpoints.updateOne(
      { _id: checkpointId(key) },
      { $set: { checkpoint: JSON.stringify(checkpoint), updatedAt: now } },
      { upsert: true },
    );
  }

  async clearCheckpoint(key: CheckpointKey): Promise<void> {
    await this.checkpoints.deleteOne({ _id: checkpointId(key) });
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  private async saveIn(
    session: ClientSession | undefined,
    scope: RecordScope,
    records: PreparedRecord[],
    options: SaveOptions,
  ): Promise<WriteCounts> {
    const partition = await this.ensurePartition(scope, session);
    const unique = uniqueById(records);
    const existing = await this.existingRecords(
      partition._id,
      unique.map((u) => u.id),
      session,
    );
    const plan = planSave(unique, existing, partition, options.now, options.keepModifiedAfter ?? null);
    const p = partition._id;
    const ops = plan.writes.map((w) => recordDocWrite(w, p, partition.mark, plan.at));
    if (ops.length) await this.records.bulkWrite(ops, { session, ordered: true });
    const changed = plan.counts.added + plan.counts.updated > 0;
    await this.partitions.updateOne(
      { _id: p },
      {
        $set: { nextSeq: plan.nextSeq, lastModifiedAt: changed ? plan.at : partition.lastModifiedAt },
        $inc: { count: plan.counts.added },
      },
      { session },
    );
    return plan.counts;
  }

  /** Marks `ids` (live records, in id order) deleted with the next sequence numbers. */
  private async markDeleted(session: ClientSession | undefined, p: string, ids: string[], now: number) {
    const partition = await this.partitions.findOneAndUpdate(
      { _id: p },
      { $inc: { nextSeq: ids.length } },
      { session, returnDocument: "before" },
    );
    if (!partition) return 0;
    const at = Math.max(now, partition.lastModifiedAt);
    let seq = partition.nextSeq;
    await this.records.bulkWrite(
      ids.map((id) => ({
        updateOne: {
          filter: { p, id },
          update: { $set: { action: "DELETED" as const, deletedAt: at, lastModifiedAt: at, seq: seq++ } },
        },
      })),
      { session, ordered: true },
    );
    await this.partitions.updateOne({ _id: p }, { $set: { lastModifiedAt: at } }, { session });
    return ids.length;
  }

  /** What the store knows of each id that has a record in the partition, for planSave. */
  private async existingRecords(
    p: string,
    ids: string[],
    session?: ClientSession,
  ): Promise<Map<string, ExistingRecord>> {
    const existing = new Map<string, ExistingRecord>();
    for (const r of await this.byIds(p, ids, session)) {
      existing.set(r.id, {
        hash: r.hash,
        action: r.action,
        lastModifiedAt: r.lastModifiedAt,
        pruned: r.prunedAt !== null,
        seenMark: r.seenMark,
      });
    }
    return existing;
  }

  private async byIds(p: string, ids: string[], session?: ClientSession): Promise<RecordDoc[]> {
    if (ids.length === 0) return [];
    return this.records.find({ p, id: { $in: ids } }, { session }).toArray();
  }

  private async ensurePartition(scope: RecordScope, session?: ClientSession): Promise<PartitionDoc> {
    const _id = partitionId(scope);
    const fresh = { ...scope, secret: new Binary(randomBytes(32)), nextSeq: 1, lastModifiedAt: 0, mark: 0, count: 0 };
    // A no-op write that takes the partition's lock inside a transaction: writers of one partition commit in turn.
    const doc = await this.partitions.findOneAndUpdate(
      { _id },
      { $setOnInsert: fresh, $inc: { writes: 1 } as Record<string, number> },
      { upsert: true, returnDocument: "after", session },
    );
    return doc as PartitionDoc;
  }

  private async atomically<T>(fn: (session: ClientSession | undefined) => Promise<T>): Promise<T> {
    if (!this.transactions) return fn(undefined);
    return this.client.withSession((session) => session.withTransaction(() => fn(session)));
  }
}

function toStored(doc: RecordDoc): StoredRecord {
  return {
    id: doc.id,
    data: doc.data,
    seq: doc.seq,
    action: doc.action,
    firstSeenAt: doc.firstSeenAt,
    lastModifiedAt: doc.lastModifiedAt,
    deletedAt: doc.deletedAt,
    prunedAt: doc.prunedAt,
  };
}
