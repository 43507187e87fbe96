import { type Collection, type Db, MongoClient, MongoServerError } from "mongodb";
import type { ClaimOutcome, Lease, ScheduleEntry, ScheduleKey, ScriptOptions } from "./records.ts";
import type { ScriptsServiceStore } from "./service-store.ts";

type ScheduleDoc = ScheduleEntry & { _id: string };
interface OptionsDoc {
  _id: string;
  environmentId: string;
  providerConfigKey: string;
  scriptName: string;
  forwardWebhooksToo: boolean;
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
      { key: { environmentId: 1, providerConfigKey: 1, connectionId: 1 }, name: "by_connection" },
      { key: { environmentId: 1, providerConfigKey: 1, scriptName: 1 }, name: "by_script" },
    ]);
    return new MongoScriptsServiceStore(schedules, db.collection<OptionsDoc>("script_options"), client);
  }

  async ensureSchedules(entries: (ScheduleKey & { nextDueAt: number | null })[]): Promise<number> {
    if (entries.length === 0) return 0;
    const result = await this.schedules.bulkWrite(
      entries.map((e) => ({
        updateOne: {
          filter: { _id: scheduleId(e) },
          update: {
            $setOnInsert: {
              environmentId: e.environmentId,
              providerConfigKey: e.providerConfigKey,
              scriptName: e.scriptName,
              connectionId: e.connectionId,
              nextDueAt: e.nextDueAt,
              leaseHolder: null,
              leaseUntil: null,
              lastSuccessAt: null,
            },
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
    const docs = await this.schedules
      .find({ nextDueAt: { $ne: null, $lte: now } })
      .sort({ nextDueAt: 1 })
      .limit(limit)
      .toArray();
    return docs.map(toEntry);
  }

  async earliestDue(): Promise<number | null> {
    const doc = await this.schedules
      .find({ nextDueAt: { $ne: null } })
      .sort({ nextDueAt: 1 })
      .limit(1)
      .next();
    return doc?.nextDueAt ?? null;
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
          $setOnInsert: {
            environmentId: key.environmentId,
            providerConfigKey: key.providerConfigKey,
            scriptName: key.scriptName,
            connectionId: key.connectionId,
            nextDueAt,
            lastSuccessAt: null,
          },
        },
        { upsert: true },
      );
      return res.modifiedCount === 1 || res.upsertedCount === 1;
    } catch (err) {
      if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
      throw err;
    }
  }

  async releaseLease(key: ScheduleKey, holder: string, succeededAt: number | null): Promise<void> {
    await this.schedules.updateOne(
      { _id: scheduleId(key), leaseHolder: holder },
      {
        $set: { leaseHolder: null, leaseUntil: null, ...(succeededAt === null ? {} : { lastSuccessAt: succeededAt }) },
      },
    );
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
  };
}
