import { type Collection, type Db, MongoServerError } from "mongodb";
import type { ManagedOutcome, ManagedSlot, ManagedSlotKey } from "./managed-records.ts";
import { STOPPED_REASON } from "./managed-records.ts";
import type { ManagedSlotStore } from "./managed-store.ts";

const COLLECTION = "managed_slots";
const NOT_STORED = { _id: 0 } as const;

/** The managed channels' schedule on MongoDB: single-document atomic updates, one per slot. */
export class MongoManagedSlots implements ManagedSlotStore {
  private constructor(private readonly slots: Collection<ManagedSlot>) {}

  /** Uses the registry's database and ensures the indexes. */
  static async open(db: Db): Promise<MongoManagedSlots> {
    const slots = db.collection<ManagedSlot>(COLLECTION);
    await slots.createIndexes([
      { key: { environmentId: 1, providerConfigKey: 1, connectionId: 1 }, name: "slot_key", unique: true },
      { key: { environmentId: 1, dueAt: 1 }, name: "by_due" },
    ]);
    return new MongoManagedSlots(slots);
  }

  async scheduleManaged(key: ManagedSlotKey, reason: string, dueAt: number, at: number): Promise<ManagedSlot> {
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await this.slots.findOneAndUpdate(
          keyOf(key),
          {
            $set: { dueAt, reason, attempts: 0, lastError: null },
            $inc: { generation: 1 },
            $max: { updatedAt: at },
            $setOnInsert: { channelId: null, staleChannelId: null, claimedBy: null, claimedUntil: null },
          },
          { upsert: true, returnDocument: "after", projection: NOT_STORED },
        );
        return fromDoc(doc as ManagedSlot);
      } catch (err) {
        // Two first schedules of one slot at once: the loser's upsert hits the unique key; retry as an update.
        if (attempt === 0 && err instanceof MongoServerError && err.code === 11000) continue;
        throw err;
      }
    }
  }

  async cancelManaged(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string | undefined,
    at: number,
  ): Promise<number> {
    const filter =
      connectionId === undefined
        ? { environmentId, providerConfigKey }
        : { environmentId, providerConfigKey, connectionId };
    const res = await this.slots.updateMany(filter, {
      $set: { dueAt: null, reason: STOPPED_REASON },
      $inc: { generation: 1 },
      $max: { updatedAt: at },
    });
    return res.modifiedCount;
  }

  async claimDueManaged(
    environmentId: string,
    now: number,
    owner: string,
    claimUntil: number,
    limit: number,
  ): Promise<ManagedSlot[]> {
    const claimed: ManagedSlot[] = [];
    while (claimed.length < limit) {
      const doc = await this.slots.findOneAndUpdate(
        {
          environmentId,
          dueAt: { $ne: null, $lte: now },
          $or: [{ claimedUntil: null }, { claimedUntil: { $lte: now } }],
        },
        { $set: { claimedBy: owner, claimedUntil: claimUntil } },
        { sort: { dueAt: 1 }, returnDocument: "after", projection: NOT_STORED },
      );
      if (!doc) break;
      claimed.push(fromDoc(doc));
    }
    return claimed;
  }

  async finishManaged(
    key: ManagedSlotKey,
    owner: string,
    generation: number,
    outcome: ManagedOutcome,
    at: number,
  ): Promise<ManagedSlot | null> {
    const current = { $eq: ["$generation", generation] };
    const doc = await this.slots.findOneAndUpdate(
      { ...keyOf(key), claimedBy: owner },
      [
        {
          $set: {
            channelId: outcome.channelId === undefined ? "$channelId" : { $literal: outcome.channelId },
            staleChannelId:
              outcome.staleChannelId === undefined ? "$staleChannelId" : { $literal: outcome.staleChannelId },
            dueAt: { $cond: [current, { $literal: outcome.dueAt }, "$dueAt"] },
            reason: { $cond: [current, { $literal: outcome.reason }, "$reason"] },
            attempts: outcome.error === undefined ? 0 : { $add: ["$attempts", 1] },
            lastError: { $literal: outcome.error ?? null },
            claimedBy: null,
            claimedUntil: null,
            updatedAt: { $max: ["$updatedAt", at] },
          },
        },
      ],
      { returnDocument: "after", projection: NOT_STORED },
    );
    return doc ? fromDoc(doc) : null;
  }

  async getManaged(key: ManagedSlotKey): Promise<ManagedSlot | null> {
    const doc = await this.slots.findOne(keyOf(key), { projection: NOT_STORED });
    return doc ? fromDoc(doc) : null;
  }

  async nextManagedDue(environmentId: string): Promise<number | null> {
    const doc = await this.slots.findOne(
      { environmentId, dueAt: { $ne: null } },
      { sort: { dueAt: 1 }, projection: { _id: 0, dueAt: 1 } },
    );
    return doc?.dueAt ?? null;
  }
}

function keyOf(key: ManagedSlotKey): ManagedSlotKey {
  return { environmentId: key.environmentId, providerConfigKey: key.providerConfigKey, connectionId: key.connectionId };
}

/** The slot of a document, with exactly the slot's fields. */
function fromDoc(d: ManagedSlot): ManagedSlot {
  return {
    environmentId: d.environmentId,
    providerConfigKey: d.providerConfigKey,
    connectionId: d.connectionId,
    channelId: d.channelId ?? null,
    staleChannelId: d.staleChannelId ?? null,
    dueAt: d.dueAt ?? null,
    reason: d.reason,
    attempts: d.attempts ?? 0,
    lastError: d.lastError ?? null,
    generation: d.generation ?? 0,
    claimedBy: d.claimedBy ?? null,
    claimedUntil: d.claimedUntil ?? null,
    updatedAt: d.updatedAt,
  };
}
