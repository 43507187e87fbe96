import type { Collection, Db } from "mongodb";
import type {
  ConnectionScope,
  IntegrationKey,
  RecordRetention,
  RecordScope,
  RetentionCutoffs,
  RetentionRule,
} from "./record-store.ts";

/** The fields of a partition document retention reads and writes (absent on older documents). */
interface PartitionMarks {
  _id: string;
  environmentId: string;
  providerConfigKey: string;
  lastModifiedAt: number;
  count: number;
  readSeq?: number;
  lastRunAt?: number;
}

interface RuleDoc extends IntegrationKey, RetentionRule {
  _id: string;
  updatedAt: number;
}

/** Records changed per call by retention. */
const CHUNK = 5_000;
const partitionId = (s: RecordScope) =>
  JSON.stringify([s.environmentId, s.providerConfigKey, s.connectionId, s.model, s.variant]);
const ruleId = (k: IntegrationKey) => JSON.stringify([k.environmentId, k.providerConfigKey]);

/** Retention on the records store's MongoDB database (the partitions' and records' collections). */
export class MongoRecordRetention implements RecordRetention {
  private readonly partitions: Collection<PartitionMarks>;
  private readonly records: Collection<{ p: string; seq: number; lastModifiedAt: number; prunedAt: number | null }>;
  private readonly rules: Collection<RuleDoc>;

  constructor(db: Db) {
    this.partitions = db.collection("record_partitions");
    this.records = db.collection("records");
    this.rules = db.collection("record_retention");
  }

  async markRead(scope: RecordScope, seq: number): Promise<void> {
    await this.partitions.updateOne({ _id: partitionId(scope) }, { $max: { readSeq: seq } });
  }

  async markRun(scope: ConnectionScope, models: { model: string; variant: string }[], now: number): Promise<void> {
    if (models.length === 0) return;
    const ids = models.map((m) => partitionId({ ...scope, ...m }));
    await this.partitions.updateMany({ _id: { $in: ids } }, { $max: { lastRunAt: now } });
  }

  async getRule(key: IntegrationKey): Promise<RetentionRule | null> {
    const doc = await this.rules.findOne({ _id: ruleId(key) });
    return doc ? { payloadDays: doc.payloadDays, recordsDays: doc.recordsDays } : null;
  }

  async setRule(key: IntegrationKey, rule: RetentionRule, now: number): Promise<void> {
    const doc = { ...key, payloadDays: rule.payloadDays, recordsDays: rule.recordsDays, updatedAt: now };
    await this.rules.updateOne({ _id: ruleId(key) }, { $set: doc }, { upsert: true });
  }

  async listRules() {
    const docs = await this.rules.find({}).toArray();
    return docs.map((d) => ({
      environmentId: d.environmentId,
      providerConfigKey: d.providerConfigKey,
      payloadDays: d.payloadDays,
      recordsDays: d.recordsDays,
    }));
  }

  async apply(key: IntegrationKey, cutoffs: RetentionCutoffs, now: number) {
    const parts = await this.partitions
      .find({ environmentId: key.environmentId, providerConfigKey: key.providerConfigKey, readSeq: { $gt: 0 } })
      .toArray();
    let pruned = 0;
    let deleted = 0;
    for (const part of parts) {
      const readSeq = part.readSeq ?? 0;
      const ran = Math.max(part.lastRunAt ?? 0, part.lastModifiedAt);
      if (cutoffs.deleteBefore !== null && ran < cutoffs.deleteBefore) {
        deleted += await this.inChunks({ p: part._id, seq: { $lte: readSeq } }, async (seqs) => {
          const n = (await this.records.deleteMany({ p: part._id, seq: { $in: seqs } })).deletedCount;
          await this.partitions.updateOne({ _id: part._id }, { $inc: { count: -n } });
          return n;
        });
      }
      if (cutoffs.pruneBefore !== null) {
        const stale = {
          p: part._id,
          seq: { $lte: readSeq },
          lastModifiedAt: { $lt: cutoffs.pruneBefore },
          prunedAt: null,
        };
        pruned += await this.inChunks(stale, async (seqs) => {
          const res = await this.records.updateMany(
            { p: part._id, seq: { $in: seqs } },
            { $set: { data: null, prunedAt: now } },
          );
          return res.modifiedCount;
        });
      }
    }
    return { pruned, deleted };
  }

  /** Applies `change` to the records matching `filter`, CHUNK at a time, until none is left. */
  private async inChunks(filter: object, change: (seqs: number[]) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const docs = await this.records
        .find(filter, { projection: { seq: 1 } })
        .sort({ seq: 1 })
        .limit(CHUNK)
        .toArray();
      if (docs.length === 0) return total;
      total += await change(docs.map((d) => d.seq));
      if (docs.length < CHUNK) return total;
    }
  }
}
