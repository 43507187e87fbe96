import { Binary, type Collection, type Db, MongoServerError } from "mongodb";
import { idTimeBound } from "@junction/platform";
import type {
  AttemptRecord,
  DeliverableMessage,
  DeliveryStatus,
  MessageFilter,
  MessageRecord,
  RoundOutcome,
} from "./records.ts";
import type { WebhookDeliveryStore } from "./store.ts";

/** A message document: the record keyed by its id, the body as binary. */
interface MessageDoc extends Omit<MessageRecord, "id" | "body"> {
  _id: string;
  body: Binary;
}

interface AttemptDoc extends Omit<AttemptRecord, "id"> {
  _id: string;
}

interface NotificationKeyDoc {
  /**
   * environment id, channel id and message number, joined by newlines (none occur in them); or, for a
   * provider's de-duplication key, see dedupeKeyId.
   */
  _id: string;
  environmentId: string;
  notificationId: string;
  receivedAt: number;
}

const DUPLICATE_KEY = 11000;
const DELIVERABLE: DeliveryStatus[] = ["pending", "failed"];

/**
 * The delivery half of the webhook store on MongoDB: `webhook_messages`, `webhook_attempts` and
 * `webhook_notification_keys`. Claims and outcomes are single-document writes filtered on the
 * claim, so they are atomic by themselves; a round's attempts are inserted before its outcome.
 */
export class MongoDeliveryStore implements WebhookDeliveryStore {
  private readonly messages: Collection<MessageDoc>;
  private readonly attempts: Collection<AttemptDoc>;
  private readonly keys: Collection<NotificationKeyDoc>;

  constructor(db: Db) {
    this.messages = db.collection<MessageDoc>("webhook_messages");
    this.attempts = db.collection<AttemptDoc>("webhook_attempts");
    this.keys = db.collection<NotificationKeyDoc>("webhook_notification_keys");
  }

  /** Creates the indexes every query uses (idempotent). */
  async createIndexes(): Promise<void> {
    await Promise.all([
      this.messages.createIndexes([
        { key: { environmentId: 1, _id: -1 }, name: "by_environment" },
        { key: { environmentId: 1, providerConfigKey: 1, _id: -1 }, name: "by_integration" },
        { key: { environmentId: 1, connectionId: 1, _id: -1 }, name: "by_connection" },
        { key: { environmentId: 1, status: 1, _id: -1 }, name: "by_status" },
        {
          key: { nextAttemptAt: 1, _id: 1 },
          name: "deliverable",
          partialFilterExpression: { status: { $in: DELIVERABLE } },
        },
      ]),
      this.attempts.createIndex({ messageId: 1, at: 1, number: 1, _id: 1 }, { name: "by_message" }),
      this.keys.createIndex({ receivedAt: 1 }, { name: "by_time" }),
    ]);
  }

  async insertMessage(m: MessageRecord): Promise<boolean> {
    try {
      await this.messages.insertOne(toDoc(m));
      return true;
    } catch (err) {
      if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
      throw err;
    }
  }

  async getMessage(environmentId: string, id: string): Promise<MessageRecord | null> {
    const doc = await this.messages.findOne({ _id: id, environmentId });
    return doc ? fromDoc(doc) : null;
  }

  async listMessages(
    environmentId: string,
    filter: MessageFilter,
    limit: number,
    beforeId?: string,
  ): Promise<MessageRecord[]> {
    const query: Record<string, unknown> = { environmentId };
    if (filter.providerConfigKey !== undefined) query.providerConfigKey = filter.providerConfigKey;
    if (filter.unmatchedOnly) query.connectionId = "";
    else if (filter.connectionId !== undefined) query.connectionId = filter.connectionId;
    if (filter.status !== undefined) query.status = filter.status;
    if (filter.type !== undefined) query.type = filter.type;
    if (beforeId !== undefined) query._id = { $lt: beforeId };
    const docs = await this.messages
      .find(query)
      .sort({ _id: -1 })
      .limit(Math.max(1, Math.floor(limit)))
      .toArray();
    return docs.map(fromDoc);
  }

  async listAttempts(messageId: string): Promise<AttemptRecord[]> {
    const docs = await this.attempts.find({ messageId }).sort({ at: 1, number: 1, _id: 1 }).toArray();
    return docs.map(({ _id, ...rest }) => ({ id: _id, ...rest }));
  }

  async claimMessage(id: string, now: number, leaseUntil: number, leaseToken: string): Promise<MessageRecord | null> {
    const doc = await this.messages.findOneAndUpdate(
      {
        _id: id,
        status: { $in: DELIVERABLE },
        nextAttemptAt: { $lte: now },
        $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }],
      },
      { $set: { leaseToken, leaseUntil } },
      { returnDocument: "after" },
    );
    return doc ? fromDoc(doc) : null;
  }

  async completeRound(id: string, leaseToken: string, attempts: AttemptRecord[], o: RoundOutcome): Promise<boolean> {
    if (attempts.length > 0) {
      try {
        await this.attempts.insertMany(
          attempts.map(({ id: attemptId, ...rest }) => ({ _id: attemptId, ...rest })),
          { ordered: false },
        );
      } catch (err) {
        // An attempt already written (a retried call) is fine; anything else is not.
        if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
      }
    }
    const result = await this.messages.updateOne(
      { _id: id, leaseToken },
      { $set: { ...o, leaseToken: null, leaseUntil: null } },
    );
    return result.modifiedCount === 1;
  }

  async listDeliverable(limit: number): Promise<DeliverableMessage[]> {
    const docs = await this.messages
      .find({ status: { $in: DELIVERABLE }, nextAttemptAt: { $ne: null } })
      .project<{ _id: string; nextAttemptAt: number; leaseUntil: number | null }>({ nextAttemptAt: 1, leaseUntil: 1 })
      .sort({ nextAttemptAt: 1, _id: 1 })
      .limit(Math.max(1, Math.floor(limit)))
      .toArray();
    return docs.map((d) => ({ id: d._id, nextAttemptAt: d.nextAttemptAt, leaseUntil: d.leaseUntil ?? null }));
  }

  async countPending(environmentId: string, providerConfigKey: string, limit: number): Promise<number> {
    // By status, not by integration: the not-final messages (bounded by the caps), not the retained history.
    return this.messages.countDocuments(
      { environmentId, status: { $in: DELIVERABLE }, providerConfigKey },
      { limit: Math.max(1, Math.floor(limit)), hint: "by_status" },
    );
  }

  async findDeliverable(id: string): Promise<DeliverableMessage | null> {
    const d = await this.messages.findOne(
      { _id: id, status: { $in: DELIVERABLE }, nextAttemptAt: { $ne: null } },
      { projection: { nextAttemptAt: 1, leaseUntil: 1 } },
    );
    return d ? { id: d._id, nextAttemptAt: d.nextAttemptAt as number, leaseUntil: d.leaseUntil ?? null } : null;
  }

  async replayMessage(environmentId: string, id: string, now: number): Promise<MessageRecord | null> {
    const doc = await this.messages.findOneAndUpdate(
      { _id: id, environmentId },
      { $set: replaySet(now) },
      { returnDocument: "after" },
    );
    return doc ? fromDoc(doc) : null;
  }

  async replayFailed(environmentId: string, since: number, now: number): Promise<string[]> {
    const filter = {
      environmentId,
      status: { $in: ["failed", "exhausted"] as DeliveryStatus[] },
      createdAt: { $gte: since },
    };
    const ids = (await this.messages.find(filter).project<{ _id: string }>({ _id: 1 }).toArray()).map((d) => d._id);
    if (ids.length === 0) return [];
    // Only those still failed or exhausted at the update are replayed (and returned).
    const replayed: string[] = [];
    for (const id of ids) {
      const result = await this.messages.updateOne({ ...filter, _id: id }, { $set: replaySet(now) });
      if (result.modifiedCount === 1) replayed.push(id);
    }
    return replayed.sort();
  }

  async claimNotificationKey(
    environmentId: string,
    channelId: string,
    messageNumber: number,
    notificationId: string,
    now: number,
  ): Promise<string> {
    return this.claimKey(keyId(environmentId, channelId, messageNumber), environmentId, notificationId, now);
  }

  /** Inserts the key's document unless one exists; returns the owner. */
  private async claimKey(_id: string, environmentId: string, notificationId: string, now: number): Promise<string> {
    try {
      await this.keys.insertOne({ _id, environmentId, notificationId, receivedAt: now });
      return notificationId;
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
    }
    return (await this.keys.findOne({ _id }))?.notificationId ?? notificationId;
  }

  async findNotificationKey(environmentId: string, channelId: string, messageNumber: number): Promise<string | null> {
    const doc = await this.keys.findOne({ _id: keyId(environmentId, channelId, messageNumber) });
    return doc?.notificationId ?? null;
  }

  async claimDedupeKey(
    environmentId: string,
    providerConfigKey: string,
    key: string,
    notificationId: string,
    now: number,
  ): Promise<string> {
    return this.claimKey(dedupeKeyId(environmentId, providerConfigKey, key), environmentId, notificationId, now);
  }

  async findDedupeKey(environmentId: string, providerConfigKey: string, key: string): Promise<string | null> {
    const doc = await this.keys.findOne({ _id: dedupeKeyId(environmentId, providerConfigKey, key) });
    return doc?.notificationId ?? null;
  }

  async pruneNotificationKeys(before: number): Promise<number> {
    return (await this.keys.deleteMany({ receivedAt: { $lt: before } })).deletedCount;
  }

  // Message ids sort by creation time: a range of _id, oldest first. Attempts go first, so that a
  // prune cut short leaves messages without attempts to prune again, never attempts without a message.
  async pruneFinishedMessages(before: number, limit: number): Promise<number> {
    const docs = await this.messages
      .find(
        {
          _id: { $lt: idTimeBound("msg", before) },
          createdAt: { $lt: before },
          status: { $in: ["succeeded", "exhausted"] },
        },
        { projection: { _id: 1 } },
      )
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    const ids = docs.map((d) => d._id);
    if (ids.length === 0) return 0;
    await this.attempts.deleteMany({ messageId: { $in: ids } });
    return (await this.messages.deleteMany({ _id: { $in: ids } })).deletedCount;
  }
}

function keyId(environmentId: string, channelId: string, messageNumber: number): string {
  return `${environmentId}\n${channelId}\n${messageNumber}`;
}

/**
 * A provider key's document id, in the same collection (pruned with the others): a JSON array, which
 * no (channel id, message number) id is (those start with the environment id), whatever the key holds.
 */
function dedupeKeyId(environmentId: string, providerConfigKey: string, key: string): string {
  return JSON.stringify(["dedupe", environmentId, providerConfigKey, key]);
}

function replaySet(now: number) {
  return {
    status: "pending" as DeliveryStatus,
    nextAttemptAt: now,
    roundAttempts: 0,
    deliveredEndpointIds: [] as string[],
    lastError: null,
    leaseToken: null,
    leaseUntil: null,
    updatedAt: now,
  };
}

function toDoc(m: MessageRecord): MessageDoc {
  const { id, body, ...rest } = m;
  return { _id: id, ...rest, body: new Binary(Buffer.from(body)), deliveredEndpointIds: [...m.deliveredEndpointIds] };
}

function fromDoc(d: MessageDoc): MessageRecord {
  const { _id, body, ...rest } = d;
  return {
    ...rest,
    id: _id,
    body: new Uint8Array(body.buffer),
    deliveredEndpointIds: [...(d.deliveredEndpointIds ?? [])],
    nextAttemptAt: d.nextAttemptAt ?? null,
    lastError: d.lastError ?? null,
    leaseToken: d.leaseToken ?? null,
    leaseUntil: d.leaseUntil ?? null,
  };
}
