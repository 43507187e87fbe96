import { type Collection, type Db, type Filter, MongoClient, MongoServerError } from "mongodb";
import { applyWatch, asOf, newestFirst } from "./lifecycle.ts";
import { MongoManagedSlots } from "./mongo-managed.ts";
import type { ChannelFilter, ChannelRecord, ChannelState, ChannelTokenRow, ChannelWatch } from "./records.ts";
import type { ChannelStore } from "./store.ts";

/** A stored channel: the record plus `rev`, bumped on every write, for compare-and-set. */
type ChannelDoc = ChannelRecord & { rev: number };

const COLLECTION = "channels";
const NOT_STORED = { _id: 0, rev: 0 } as const;
/** Compare-and-set attempts of one watch before giving up; only a storm of writes to one channel gets there. */
const MAX_ATTEMPTS = 20;

/**
 * The channel registry on MongoDB. Single-document writes are atomic; the read-then-write of a
 * watch is a compare-and-set on `rev`, retried when another writer got there first.
 */
export class MongoChannelStore implements ChannelStore {
  private constructor(
    private readonly channels: Collection<ChannelDoc>,
    private readonly client: MongoClient | undefined,
    /** The managed channels' schedule, in the same database. */
    readonly managed: MongoManagedSlots,
  ) {}

  /** Connects to `url`, uses database `dbName`, and ensures the indexes. Closing closes the client. */
  static async connect(url: string, dbName: string): Promise<MongoChannelStore> {
    const client = await new MongoClient(url).connect();
    try {
      return await MongoChannelStore.open(client.db(dbName), client);
    } catch (err) {
      await client.close();
      throw err;
    }
  }

  /** Uses an open database (the caller keeps the client unless it passes it) and ensures the indexes. */
  static async open(db: Db, client?: MongoClient): Promise<MongoChannelStore> {
    const channels = db.collection<ChannelDoc>(COLLECTION);
    await channels.createIndexes([
      { key: { environmentId: 1, id: 1 }, name: "channel_key", unique: true },
      { key: { environmentId: 1, createdAt: -1, id: -1 }, name: "newest" },
      { key: { environmentId: 1, providerConfigKey: 1, createdAt: -1, id: -1 }, name: "by_integration" },
      { key: { environmentId: 1, connectionId: 1, createdAt: -1, id: -1 }, name: "by_connection" },
      { key: { environmentId: 1, state: 1, expiration: 1 }, name: "by_state_expiration" },
    ]);
    return new MongoChannelStore(channels, client, await MongoManagedSlots.open(db));
  }

  async recordWatch(watch: ChannelWatch): Promise<{ applied: boolean; channel: ChannelRecord }> {
    const key = { environmentId: watch.environmentId, id: watch.channelId };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const doc = await this.channels.findOne(key, { projection: { _id: 0 } });
      const existing = doc ? fromDoc(doc) : null;
      const next = applyWatch(existing, watch);
      if (!next) return { applied: false, channel: asOf(existing as ChannelRecord, watch.at) };
      if (!doc) {
        try {
          await this.channels.insertOne({ ...next, rev: 0 });
          return { applied: true, channel: next };
        } catch (err) {
          if (err instanceof MongoServerError && err.code === 11000) continue;
          throw err;
        }
      }
      const res = await this.channels.replaceOne({ ...key, rev: doc.rev }, { ...next, rev: doc.rev + 1 });
      if (res.matchedCount === 1) return { applied: true, channel: next };
    }
    throw new Error(`channel ${watch.channelId}: too many concurrent writes, watch not recorded`);
  }

  async recordStop(environmentId: string, channelId: string, resourceId: string, at: number): Promise<boolean> {
    const res = await this.channels.updateOne(
      { environmentId, id: channelId, resourceId, state: { $ne: "stopped" }, createdAt: { $lte: at } },
      { $set: { state: "stopped", stoppedAt: at }, $max: { updatedAt: at }, $inc: { rev: 1 } },
    );
    return res.modifiedCount === 1;
  }

  async recordRenewal(environmentId: string, channelId: string, expiration: number, at: number): Promise<boolean> {
    const res = await this.channels.updateOne(
      {
        environmentId,
        id: channelId,
        state: "active",
        createdAt: { $lte: at },
        $or: [{ expiration: null }, { expiration: { $gt: at, $lt: expiration } }],
      },
      { $set: { expiration, expiryWarnedAt: null }, $max: { updatedAt: at }, $inc: { rev: 1 } },
    );
    return res.modifiedCount === 1;
  }

  async recordNotification(
    environmentId: string,
    channelId: string,
    messageNumber: number,
    at: number,
  ): Promise<ChannelRecord | null> {
    await this.channels.updateOne(
      { environmentId, id: channelId, lastMessageNumber: { $lt: messageNumber } },
      { $set: { lastMessageNumber: messageNumber }, $max: { updatedAt: at }, $inc: { rev: 1 } },
    );
    return this.get(environmentId, channelId, at);
  }

  async get(environmentId: string, channelId: string, now: number): Promise<ChannelRecord | null> {
    const doc = await this.channels.findOne({ environmentId, id: channelId }, { projection: NOT_STORED });
    return doc ? asOf(fromDoc(doc), now) : null;
  }

  async list(environmentId: string, filter: ChannelFilter, now: number): Promise<ChannelRecord[]> {
    const and: Filter<ChannelDoc>[] = [{ environmentId }];
    if (filter.providerConfigKey !== undefined) and.push({ providerConfigKey: filter.providerConfigKey });
    if (filter.connectionId !== undefined) and.push({ connectionId: filter.connectionId });
    if (filter.state !== undefined) and.push(stateFilter(filter.state, now));
    // $lt on a number never matches null: channels of unknown expiration are never "expiring".
    if (filter.expiringBefore !== undefined) and.push({ expiration: { $lt: filter.expiringBefore } });
    const docs = await this.channels
      .find(and.length === 1 ? (and[0] as Filter<ChannelDoc>) : { $and: and }, { projection: NOT_STORED })
      .sort({ createdAt: -1, id: -1 })
      .toArray();
    return docs.map((d) => asOf(fromDoc(d), now));
  }

  async claimExpiryWarning(environmentId: string, channelId: string, at: number): Promise<boolean> {
    const res = await this.channels.updateOne(
      { environmentId, id: channelId, state: "active", expiryWarnedAt: null },
      { $set: { expiryWarnedAt: at }, $inc: { rev: 1 } },
    );
    return res.modifiedCount === 1;
  }

  async releaseExpiryWarning(environmentId: string, channelId: string, at: number): Promise<void> {
    await this.channels.updateOne(
      { environmentId, id: channelId, expiryWarnedAt: at },
      { $set: { expiryWarnedAt: null }, $inc: { rev: 1 } },
    );
  }

  async markExpired(environmentId: string, now: number): Promise<ChannelRecord[]> {
    const due = { environmentId, state: "active" as const, expiration: { $lte: now } };
    const candidates = await this.channels.find(due, { projection: NOT_STORED }).toArray();
    const expired: ChannelRecord[] = [];
    // One conditional update each, so that a channel renewed or stopped meanwhile is left alone.
    for (const c of candidates) {
      const res = await this.channels.updateOne(
        { ...due, id: c.id },
        { $set: { state: "expired" }, $max: { updatedAt: now }, $inc: { rev: 1 } },
      );
      if (res.modifiedCount === 1) {
        expired.push({ ...fromDoc(c), state: "expired", updatedAt: Math.max(c.updatedAt, now) });
      }
    }
    return expired.sort(newestFirst);
  }

  async tokenRows(
    after: { environmentId: string; id: string } | null,
    limit: number,
    unsealedOnly: boolean,
  ): Promise<ChannelTokenRow[]> {
    const from = after ?? { environmentId: "", id: "" };
    const docs = await this.channels
      .find(
        {
          token: { $type: "string" },
          ...(unsealedOnly ? { tokenDigest: null } : {}),
          $or: [
            { environmentId: { $gt: from.environmentId } },
            { environmentId: from.environmentId, id: { $gt: from.id } },
          ],
        },
        { projection: { _id: 0, environmentId: 1, id: 1, token: 1, tokenDigest: 1 } },
      )
      .sort({ environmentId: 1, id: 1 })
      .limit(limit)
      .toArray();
    return docs.map((d) => ({
      environmentId: d.environmentId,
      id: d.id,
      token: d.token as string,
      tokenDigest: d.tokenDigest ?? null,
    }));
  }

  async replaceToken(row: ChannelTokenRow, expected: string): Promise<boolean> {
    const res = await this.channels.updateOne(
      { environmentId: row.environmentId, id: row.id, token: expected },
      { $set: { token: row.token, tokenDigest: row.tokenDigest }, $inc: { rev: 1 } },
    );
    return res.modifiedCount === 1;
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}

/** Effective-state conditions (spec: lifecycle, "Time reaches expiration"). */
function stateFilter(state: ChannelState, now: number): Filter<ChannelDoc> {
  switch (state) {
    case "active":
      return { state: "active", $or: [{ expiration: null }, { expiration: { $gt: now } }] };
    case "expired":
      return { $or: [{ state: "expired" }, { state: "active", expiration: { $lte: now } }] };
    case "stopped":
      return { state: "stopped" };
  }
}

/** The record of a document, with exactly the record's fields. */
function fromDoc(d: ChannelRecord): ChannelRecord {
  return {
    environmentId: d.environmentId,
    id: d.id,
    resourceId: d.resourceId,
    providerConfigKey: d.providerConfigKey,
    connectionId: d.connectionId,
    resourceUri: d.resourceUri,
    expiration: d.expiration ?? null,
    state: d.state,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    stoppedAt: d.stoppedAt ?? null,
    lastMessageNumber: d.lastMessageNumber,
    token: d.token ?? null,
    tokenDigest: d.tokenDigest ?? null,
    expiryWarnedAt: d.expiryWarnedAt ?? null,
  };
}
