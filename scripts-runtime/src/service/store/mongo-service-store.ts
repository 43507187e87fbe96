import { type Collection, type Db, MongoClient, MongoServerError } from "mongodb";
import { mergeDue } from "./merge-due.ts";
import type { ClaimOutcome, FollowUpMode, Lease, ScheduleEntry, ScheduleKey, ScriptOptions } from "./records.ts";
import type { ScriptsServiceStore } from "./service-store.ts";

type ScheduleDoc = ScheduleEntry & { _id: string };
type NewRow = Omit<ScheduleDoc, "_id">;
interface OptionsDoc {
  _id: string;
  environmentId: string;
  providerConfigKey: string;
  scriptName: string;
  forwardWebhooksToo: boolean;
}

interface DeployLockDoc {
  _id: string;
  holder: string;
  until: number;
}

const DUPLICATE_KEY = 11000;
const leaseFree = (now: number) => ({ $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] });
const scheduleId = (k: ScheduleKey) =>
  JSON.stringify([k.environmentId, k.providerConfigKey, k.scriptName, k.connectionId]);
const optionsId = (e: string, p: string, s: string) => JSON.stringify([e, p, s]);

/**
 * Schedules and script options on MongoDB: one document per row, every claim one conditional
 * single-document update (atomic without a transaction).
 */
export class MongoScriptsServiceStore implements ScriptsServiceStore {
  private constructor(
    private readonly schedules: Collection<ScheduleDoc>,
    private readonly options: Collection<OptionsDoc>,
    private readonly deployLocks: Collection<DeployLockDoc>,
    private readonly client: MongoClient | undefined,
  ) {}

  /** Connects to `url`, uses database `dbName`, ensures the indexes; `close` closes the client. */
  static async connect(url: string, dbName: string): Promise<MongoScriptsServiceStore> {
    const client = await new MongoClient(url).connect();
    try {
      return await MongoScriptsServiceStore.open(client.db(dbName), client);
    } catch (err) {
      await client.close();
      throw err;
    }
  }

  /** Uses an open database (the caller keeps the client unless it passes it) and ensures the indexes. */
  static async open(db: Db, client?: MongoClient): Promise<MongoScriptsServiceStore> {
    const schedules = db.collection<ScheduleDoc>("sync_schedules");
    await schedules.createIndexes([
      { key: { nextDueAt: 1 }, name: "due" },
      { key: { followUpAt: 1 }, name: "follow_up" },
      { key: { environmentId: 1, providerConfigKey: 1, connectionId: 1 }, name: "by_connection" },
      { key: { environmentId: 1, providerConfigKey: 1, scriptName: 1 }, name: "by_script" },
    ]);
    return new MongoScriptsServiceStore(
      schedules,
      db.collection<OptionsDoc>("script_options"),
      db.collection<DeployLockDoc>("deploy_locks"),
      client,
    );
  }

  async ensureSchedules(entries: (ScheduleKey & { nextDueAt: number | null })[]): Promise<number> {
    if (entries.length === 0) return 0;
    const result = await this.schedules.bulkWrite(
      entries.map((e) => ({
        updateOne: {
          filter: { _id: scheduleId(e) },
          update: {
            $setOnInsert: newRow(e, e.nextDueAt),
          },
          upsert: true,
        },
      })),
      { ordered: false },
    );
    return result.upsertedCount;
  }

  async getSchedule(key: ScheduleKey): Promise<ScheduleEntry | null> {
    const doc = await this.schedules.findOne({ _id: scheduleId(key) });
    return doc ? toEntry(doc) : null;
  }

  async listDue(now: number, limit: number): Promise<ScheduleEntry[]> {
    const [due, followUps] = await Promise.all(
      (["nextDueAt", "followUpAt"] as const).map((field) =>
        this.schedules
          .find({ [field]: { $ne: null, $lte: now } })
          .sort({ [field]: 1 })
          .limit(limit)
          .toArray(),
      ),
    );
    return mergeDue((due ?? []).map(toEntry), (followUps ?? []).map(toEntry), now, limit);
  }

  async earliestDue(): Promise<number | null> {
    const firsts = await Promise.all(
      (["nextDueAt", "followUpAt"] as const).map(async (field) => {
        const doc = await this.schedules
          .find({ [field]: { $ne: null } })
          .sort({ [field]: 1 })
          .limit(1)
          .next();
        return doc?.[field] ?? null;
      }),
    );
    const times = firsts.filter((t): t is number => typeof t === "number");
    return times.length > 0 ? Math.min(...times) : null;
  }

  async claimDue(key: ScheduleKey, due: number, next: number, lease: Lease, now: number): Promise<ClaimOutcome> {
    const res = await this.schedules.updateOne(
      { _id: scheduleId(key), nextDueAt: due, ...leaseFree(now) },
      { $set: { nextDueAt: next, leaseHolder: lease.holder, leaseUntil: lease.until } },
    );
    if (res.modifiedCount === 1) return "claimed";
    const row = await this.getSchedule(key);
    return row?.nextDueAt === due ? "busy" : "lost";
  }

  async skipDue(key: ScheduleKey, due: number, next: number): Promise<boolean> {
    const res = await this.schedules.updateOne({ _id: scheduleId(key), nextDueAt: due }, { $set: { nextDueAt: next } });
    return res.modifiedCount === 1;
  }

  async acquireLease(key: ScheduleKey, lease: Lease, now: number, nextDueAt: number | null): Promise<boolean> {
    try {
      // Matches only a free lease; with upsert, a missing row is inserted, and a held one makes the
      // insert collide on _id (duplicate key): held.
      const res = await this.schedules.updateOne(
        { _id: scheduleId(key), ...leaseFree(now) },
        {
          $set: { leaseHolder: lease.holder, leaseUntil: lease.until },
          $setOnInsert: (({ leaseHolder: _h, leaseUntil: _u, ...rest }) => rest)(newRow(key, nextDueAt)),
        },
        { upsert: true },
      );
      return res.modifiedCount === 1 || res.upsertedCount === 1;
    } catch (err) {
      if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
      throw err;
    }
  }

  async releaseLease(
    key: ScheduleKey,
    holder: string,
    succeededAt: number | null,
    renew?: Lease,
  ): Promise<FollowUpMode | null> {
    const success = succeededAt === null ? {} : { lastSuccessAt: succeededAt };
    if (renew) {
      // One single-document step: a trigger queueing meanwhile lands either before (taken) or after.
      const before = await this.schedules.findOneAndUpdate(
        { _id: scheduleId(key), leaseHolder: holder, followUp: { $ne: null } },
        { $set: { leaseUntil: renew.until, followUp: null, followUpAt: null, ...success } },
        { returnDocument: "before" },
      );
      if (before?.followUp) return before.followUp;
    }
    await this.schedules.updateOne(
      { _id: scheduleId(key), leaseHolder: holder },
      { $set: { leaseHolder: null, leaseUntil: null, ...success } },
    );
    return null;
  }

  async queueFollowUp(key: ScheduleKey, mode: FollowUpMode, now: number): Promise<boolean> {
    const res = await this.schedules.updateOne({ _id: scheduleId(key) }, [
      {
        $set: {
          followUp: { $cond: [{ $eq: ["$followUp", "full_refresh"] }, "full_refresh", mode] },
          followUpAt: {
            $ifNull: ["$followUpAt", { $cond: [{ $gt: ["$leaseUntil", now] }, "$leaseUntil", now] }],
          },
        },
      },
    ]);
    return res.matchedCount === 1;
  }

  async claimFollowUp(key: ScheduleKey, at: number, lease: Lease, now: number): Promise<FollowUpMode | null> {
    const before = await this.schedules.findOneAndUpdate(
      { _id: scheduleId(key), followUpAt: at, followUp: { $ne: null }, ...leaseFree(now) },
      { $set: { leaseHolder: lease.holder, leaseUntil: lease.until, followUp: null, followUpAt: null } },
      { returnDocument: "before" },
    );
    if (before?.followUp) return before.followUp;
    // Held: look again when the lease would lapse (its holder takes the follow-up before that).
    await this.schedules.updateOne({ _id: scheduleId(key), followUpAt: at, leaseUntil: { $gt: now } }, [
      { $set: { followUpAt: "$leaseUntil" } },
    ]);
    return null;
  }

  async setPaused(keys: ScheduleKey[], paused: boolean, now: number): Promise<number> {
    if (keys.length === 0) return 0;
    // One document per row: not one transaction, but each step is idempotent, so a retry completes it.
    const inserted = await this.schedules.bulkWrite(
      keys.map((k) => ({
        updateOne: {
          filter: { _id: scheduleId(k) },
          update: { $setOnInsert: newRow(k, paused ? null : now) },
          upsert: true,
        },
      })),
      { ordered: false },
    );
    const ids = keys.map(scheduleId);
    const updated = paused
      ? await this.schedules.updateMany(
          { _id: { $in: ids }, $or: [{ nextDueAt: { $ne: null } }, { followUp: { $ne: null } }] },
          { $set: { nextDueAt: null, followUp: null, followUpAt: null } },
        )
      : await this.schedules.updateMany({ _id: { $in: ids }, nextDueAt: null }, { $set: { nextDueAt: now } });
    return inserted.upsertedCount + updated.modifiedCount;
  }

  async setFrequency(
    key: ScheduleKey,
    frequency: { text: string; ms: number } | null,
    defaultMs: number,
    now: number,
  ): Promise<void> {
    await this.schedules.updateOne({ _id: scheduleId(key) }, { $setOnInsert: newRow(key, null) }, { upsert: true });
    await this.schedules.updateOne({ _id: scheduleId(key) }, [
      {
        $set: {
          frequency: { $literal: frequency },
          nextDueAt: { $cond: [{ $eq: ["$nextDueAt", null] }, null, now + (frequency?.ms ?? defaultMs)] },
        },
      },
    ]);
  }

  async removeScriptSchedules(environmentId: string, providerConfigKey: string, scriptName: string): Promise<number> {
    return (await this.schedules.deleteMany({ environmentId, providerConfigKey, scriptName })).deletedCount;
  }

  async removeConnectionSchedules(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<number> {
    return (await this.schedules.deleteMany({ environmentId, providerConfigKey, connectionId })).deletedCount;
  }

  async getOptions(
    environmentId: string,
    providerConfigKey: string,
    scriptName: string,
  ): Promise<ScriptOptions | null> {
    const doc = await this.options.findOne({ _id: optionsId(environmentId, providerConfigKey, scriptName) });
    return doc ? { forwardWebhooksToo: doc.forwardWebhooksToo } : null;
  }

  async setOptions(
    environmentId: string,
    providerConfigKey: string,
    scriptName: string,
    options: ScriptOptions,
  ): Promise<void> {
    await this.options.updateOne(
      { _id: optionsId(environmentId, providerConfigKey, scriptName) },
      { $set: { environmentId, providerConfigKey, scriptName, forwardWebhooksToo: options.forwardWebhooksToo } },
      { upsert: true },
    );
  }

  async removeOptions(environmentId: string, providerConfigKey: string, scriptName: string): Promise<void> {
    await this.options.deleteOne({ _id: optionsId(environmentId, providerConfigKey, scriptName) });
  }

  async acquireDeployLock(environmentId: string, lease: Lease, now: number): Promise<boolean> {
    try {
      // Upserts only when no lock is held: a held one makes the upsert collide on _id.
      await this.deployLocks.updateOne(
        { _id: environmentId, until: { $lte: now } },
        { $set: { holder: lease.holder, until: lease.until } },
        { upsert: true },
      );
      return true;
    } catch (err) {
      if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
      throw err;
    }
  }

  async releaseDeployLock(environmentId: string, holder: string): Promise<void> {
    await this.deployLocks.deleteOne({ _id: environmentId, holder });
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}

function toEntry(d: ScheduleDoc): ScheduleEntry {
  return {
    environmentId: d.environmentId,
    providerConfigKey: d.providerConfigKey,
    scriptName: d.scriptName,
    connectionId: d.connectionId,
    nextDueAt: d.nextDueAt ?? null,
    leaseHolder: d.leaseHolder ?? null,
    leaseUntil: d.leaseUntil ?? null,
    lastSuccessAt: d.lastSuccessAt ?? null,
    followUp: d.followUp ?? null,
    followUpAt: d.followUpAt ?? null,
    frequency: d.frequency ?? null,
  };
}

function newRow(k: ScheduleKey, nextDueAt: number | null): NewRow {
  return {
    environmentId: k.environmentId,
    providerConfigKey: k.providerConfigKey,
    scriptName: k.scriptName,
    connectionId: k.connectionId,
    nextDueAt,
    leaseHolder: null,
    leaseUntil: null,
    lastSuccessAt: null,
    followUp: null,
    followUpAt: null,
    frequency: null,
  };
}
