import { type AnyBulkWriteOperation, type Collection, MongoClient } from "mongodb";
import {
  type BucketRow,
  HOUR_MS,
  HOUR_RETENTION_MS,
  MINUTE_MS,
  MINUTE_RETENTION_MS,
  type OverviewStore,
  SAMPLING_LEASE,
} from "./overview-store.ts";
import type { OverviewSeries } from "./overview-readings.ts";

/** One bucket: its resolution, start, series and label (unique together), and its count. */
interface BucketDoc {
  r: number;
  s: number;
  series: string;
  label: string;
  value: number;
}

/** The lease on sampling the service processes: who holds it, until when. */
interface LeaseDoc {
  _id: string;
  holder: string;
  expiresMs: number;
}

/**
 * The overview's buckets on MongoDB (JUNCTION_STORE=mongodb): one document per bucket, added to with
 * `$inc` upserts, so that gateways sharing the database add to the same buckets.
 */
export class MongoOverviewStore implements OverviewStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly buckets: Collection<BucketDoc>,
    private readonly leases: Collection<LeaseDoc>,
  ) {}

  static async connect(url: string, database: string): Promise<MongoOverviewStore> {
    const client = await MongoClient.connect(url);
    const buckets = client.db(database).collection<BucketDoc>("overview_buckets");
    await buckets.createIndex({ r: 1, s: 1, series: 1, label: 1 }, { unique: true });
    return new MongoOverviewStore(client, buckets, client.db(database).collection<LeaseDoc>("overview_sampling"));
  }

  async add(atMs: number, deltas: ReadonlyMap<string, number>): Promise<void> {
    const ops: AnyBulkWriteOperation<BucketDoc>[] = [];
    for (const [k, n] of deltas) {
      const tab = k.indexOf("\t");
      const series = k.slice(0, tab);
      const label = k.slice(tab + 1);
      for (const r of [MINUTE_MS, HOUR_MS]) {
        ops.push({
          updateOne: {
            filter: { r, s: atMs - (atMs % r), series, label },
            update: { $inc: { value: n } },
            upsert: true,
          },
        });
      }
    }
    if (ops.length === 0) return;
    try {
      await this.buckets.bulkWrite(ops, { ordered: false });
    } catch (err) {
      // Two gateways creating the same bucket at once: the loser's upsert is a duplicate key; once
      // more, it finds the bucket and adds to it. Only the failed ones go again (the rest were added).
      const failed = (err as { writeErrors?: { code: number; index: number }[] }).writeErrors;
      if (!failed || failed.some((e) => e.code !== 11000)) throw err;
      await this.buckets.bulkWrite(
        failed.map((e) => ops[e.index] as AnyBulkWriteOperation<BucketDoc>),
        { ordered: false },
      );
    }
  }

  async read(resolutionMs: number, fromMs: number, toMs: number): Promise<BucketRow[]> {
    const docs = await this.buckets
      .find({ r: resolutionMs, s: { $gte: fromMs, $lt: toMs } })
      .sort({ s: 1, series: 1, label: 1 })
      .toArray();
    return docs.map((d) => ({ startMs: d.s, series: d.series as OverviewSeries, label: d.label, value: d.value }));
  }

  async prune(nowMs: number): Promise<void> {
    await this.buckets.deleteMany({ r: MINUTE_MS, s: { $lt: nowMs - MINUTE_RETENTION_MS } });
    await this.buckets.deleteMany({ r: HOUR_MS, s: { $lt: nowMs - HOUR_RETENTION_MS } });
  }

  async claimSampling(holder: string, nowMs: number, leaseMs: number): Promise<boolean> {
    try {
      const doc = await this.leases.findOneAndUpdate(
        { _id: SAMPLING_LEASE, $or: [{ holder }, { expiresMs: { $lte: nowMs } }] },
        { $set: { holder, expiresMs: nowMs + leaseMs } },
        { upsert: true, returnDocument: "after" },
      );
      return doc?.holder === holder;
    } catch (err) {
      // Held by another and not run out: the filter missed, and the upsert's insert met the lease's _id.
      if ((err as { code?: number }).code === 11000) return false;
      throw err;
    }
  }

  async releaseSampling(holder: string): Promise<void> {
    await this.leases.updateOne({ _id: SAMPLING_LEASE, holder }, { $set: { expiresMs: 0 } });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
