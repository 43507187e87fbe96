import type { Collection, Db } from "mongodb";
import type { ConnectSessionRecord, OAuthStateRecord } from "./records.ts";
import type { ConsumedState, OAuthFlowStore } from "./store.ts";

interface SessionDocument extends Omit<ConnectSessionRecord, "id"> {
  _id: string;
}

interface StateDocument extends Omit<OAuthStateRecord, "stateHash"> {
  _id: string;
}

interface LeaseDocument {
  _id: string;
  holder: string;
  expiresAt: number;
}

// overrides and tags are absent on sessions written before they existed.
const sessionFromDocument = ({ _id, ...rest }: SessionDocument): ConnectSessionRecord => ({
  id: _id,
  ...rest,
  overrides: rest.overrides ?? {},
  tags: rest.tags ?? {},
});
// connectionConfig is absent on states written before it existed.
const stateFromDocument = ({ _id, ...rest }: StateDocument): OAuthStateRecord => ({
  stateHash: _id,
  ...rest,
  connectionConfig: rest.connectionConfig ?? {},
});

/**
 * Connect sessions, single-use states and leases in MongoDB. Each compare-and-set is one atomic
 * single-document operation, so it needs no transaction.
 */
export class MongoOAuthFlowStore implements OAuthFlowStore {
  private readonly sessions: Collection<SessionDocument>;
  private readonly states: Collection<StateDocument>;
  private readonly leases: Collection<LeaseDocument>;

  constructor(db: Db) {
    this.sessions = db.collection("connect_sessions");
    this.states = db.collection("oauth_states");
    this.leases = db.collection("leases");
  }

  async createIndexes(): Promise<void> {
    await Promise.all([
      this.sessions.createIndex({ tokenHash: 1 }, { unique: true, name: "token_hash" }),
      this.sessions.createIndex({ expiresAt: 1 }, { name: "by_expiry" }),
      this.states.createIndex({ expiresAt: 1 }, { name: "by_expiry" }),
    ]);
  }

  async insertConnectSession({ id, ...rest }: ConnectSessionRecord): Promise<void> {
    await this.sessions.insertOne({ _id: id, ...rest });
  }

  async getConnectSessionByTokenHash(tokenHash: string): Promise<ConnectSessionRecord | null> {
    const doc = await this.sessions.findOne({ tokenHash });
    return doc ? sessionFromDocument(doc) : null;
  }

  async getConnectSession(id: string): Promise<ConnectSessionRecord | null> {
    const doc = await this.sessions.findOne({ _id: id });
    return doc ? sessionFromDocument(doc) : null;
  }

  async insertOAuthState({ stateHash, ...rest }: OAuthStateRecord): Promise<void> {
    await this.states.insertOne({ _id: stateHash, ...rest });
  }

  async consumeOAuthState(stateHash: string, at: number): Promise<ConsumedState | null> {
    const first = await this.states.findOneAndUpdate(
      { _id: stateHash, consumedAt: null },
      { $set: { consumedAt: at } },
      { returnDocument: "after" },
    );
    if (first) return { state: stateFromDocument(first), alreadyUsed: false };
    const used = await this.states.findOne({ _id: stateHash });
    return used ? { state: stateFromDocument(used), alreadyUsed: true } : null;
  }

  async claimAbandonedOAuthStates(now: number, limit: number): Promise<OAuthStateRecord[]> {
    const claimed: OAuthStateRecord[] = [];
    // One document at a time, each an atomic compare-and-set on consumedAt: a state another sweeper or a
    // callback used first is not matched again.
    while (claimed.length < limit) {
      const doc = await this.states.findOneAndUpdate(
        { consumedAt: null, expiresAt: { $lte: now } },
        { $set: { consumedAt: now, abandoned: true } },
        { sort: { expiresAt: 1 }, returnDocument: "after" },
      );
      if (!doc) break;
      claimed.push(stateFromDocument(doc));
    }
    return claimed;
  }

  async purgeOAuthFlow(before: number): Promise<void> {
    await Promise.all([
      this.states.deleteMany({ expiresAt: { $lt: before } }),
      this.sessions.deleteMany({ expiresAt: { $lt: before } }),
      this.leases.deleteMany({ expiresAt: { $lt: before } }),
    ]);
  }

  async acquireLease(key: string, holder: string, now: number, expiresAt: number): Promise<boolean> {
    try {
      // Matches only a free-to-take lease; when another holder's live lease exists, the upsert
      // tries to insert a second document with the same _id and fails with a duplicate key.
      await this.leases.updateOne(
        { _id: key, $or: [{ expiresAt: { $lte: now } }, { holder }] },
        { $set: { holder, expiresAt } },
        { upsert: true },
      );
      return true;
    } catch (e) {
      if ((e as { code?: unknown }).code === 11000) return false;
      throw e;
    }
  }

  async releaseLease(key: string, holder: string): Promise<void> {
    await this.leases.deleteOne({ _id: key, holder });
  }
}
