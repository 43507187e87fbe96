import { sha256Hex } from "@junction/platform";
import { type Collection, type Db, MongoClient } from "mongodb";
import type {
  AuthorizationCode,
  ConsentRequest,
  McpAuthStore,
  McpOAuthClient,
  McpServerGrant,
  TokenGrant,
  TokenKind,
} from "./mcp-auth-store.ts";

type GrantKind = TokenKind | "code" | "consent";

interface ServerDoc {
  _id: string;
  body: McpServerGrant;
}

interface ClientDoc {
  _id: string;
  kind: McpOAuthClient["kind"];
  savedAtMs: number;
  body: McpOAuthClient;
}

/** A consent request, code or token, keyed by the SHA-256 of its value. */
interface GrantDoc {
  _id: string;
  kind: GrantKind;
  serverId: string;
  clientId: string;
  expiresAtMs: number;
  /** The same instant as a Date: the TTL index's field. */
  expiresAt: Date;
  body: Record<string, unknown>;
}

/** How many unused clients one forgetUnusedClients call looks at (a registration waits on it). */
const FORGET_BATCH = 1000;

/** Without undefined members: the driver would write them as null, JSON (SQLite's body) drops them. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The MCP front door's grants on MongoDB (a distributed gateway with JUNCTION_STORE=mongodb): shared
 * by every gateway process. Consent requests, codes and tokens are keyed by their SHA-256; a take is
 * one findOneAndDelete, atomic on the server, so of two concurrent redemptions exactly one wins. A TTL
 * index deletes what expired (within a minute; readers check the expiry themselves meanwhile).
 */
export class MongoMcpAuthStore implements McpAuthStore {
  private readonly servers: Collection<ServerDoc>;
  private readonly clients: Collection<ClientDoc>;
  private readonly grants: Collection<GrantDoc>;

  /** Uses `db` of an already connected client; `close` (when given) closes that client. */
  constructor(
    db: Db,
    private readonly closeClient: () => Promise<void> = async () => {},
  ) {
    this.servers = db.collection<ServerDoc>("mcp_servers");
    this.clients = db.collection<ClientDoc>("mcp_clients");
    this.grants = db.collection<GrantDoc>("mcp_grants");
  }

  /** Connects to `url`, uses database `dbName`, and makes the indexes. */
  static async connect(url: string, dbName: string): Promise<MongoMcpAuthStore> {
    const client = await new MongoClient(url).connect();
    const store = new MongoMcpAuthStore(client.db(dbName), () => client.close());
    try {
      await store.createIndexes();
    } catch (err) {
      await client.close();
      throw err;
    }
    return store;
  }

  /** Ids and hashes are the `_id`s (unique by themselves); the rest serves revocation, cleanup and expiry. */
  async createIndexes(): Promise<void> {
    await this.grants.createIndexes([
      { key: { serverId: 1 } },
      { key: { clientId: 1 } },
      { key: { expiresAt: 1 }, expireAfterSeconds: 0, name: "mcp_grants_ttl" },
    ]);
    await this.clients.createIndexes([{ key: { kind: 1, savedAtMs: 1 } }]);
  }

  async close(): Promise<void> {
    await this.closeClient();
  }

  async putServer(server: McpServerGrant): Promise<void> {
    await this.servers.replaceOne({ _id: server.id }, { body: plain(server) }, { upsert: true });
  }

  async getServer(id: string): Promise<McpServerGrant | undefined> {
    return (await this.servers.findOne({ _id: id }))?.body;
  }

  async revokeServer(id: string, nowMs: number): Promise<boolean> {
    // Revoked once: a second revocation keeps the first instant.
    await this.servers.updateOne(
      { _id: id, "body.revokedAtMs": { $exists: false } },
      { $set: { "body.revokedAtMs": nowMs } },
    );
    if ((await this.servers.countDocuments({ _id: id }, { limit: 1 })) === 0) return false;
    await this.revokeTokens(id);
    return true;
  }

  async revokeTokens(serverId: string): Promise<number> {
    const tokens = await this.grants.deleteMany({ serverId, kind: { $in: ["access", "refresh"] } });
    await this.grants.deleteMany({ serverId });
    return tokens.deletedCount;
  }

  async putClient(client: McpOAuthClient): Promise<void> {
    const doc = { kind: client.kind, savedAtMs: client.savedAtMs, body: plain(client) };
    await this.clients.replaceOne({ _id: client.clientId }, doc, { upsert: true });
  }

  async getClient(clientId: string): Promise<McpOAuthClient | undefined> {
    return (await this.clients.findOne({ _id: clientId }))?.body;
  }

  async dynamicClientCount(): Promise<number> {
    return this.clients.countDocuments({ kind: "dynamic" });
  }

  async forgetUnusedClients(savedBeforeMs: number): Promise<number> {
    const old = { kind: "dynamic" as const, savedAtMs: { $lt: savedBeforeMs } };
    const candidates = (
      await this.clients
        .find(old, { projection: { _id: 1 } })
        .limit(FORGET_BATCH)
        .toArray()
    ).map((c) => c._id);
    if (candidates.length === 0) return 0;
    const used = new Set(await this.grants.distinct("clientId", { clientId: { $in: candidates } }));
    const unused = candidates.filter((id) => !used.has(id));
    if (unused.length === 0) return 0;
    return (await this.clients.deleteMany({ ...old, _id: { $in: unused } })).deletedCount;
  }

  async putConsent(request: ConsentRequest): Promise<void> {
    await this.put(request.id, "consent", request);
  }

  async getConsent(id: string): Promise<ConsentRequest | undefined> {
    return this.read<ConsentRequest>(id, "consent");
  }

  async takeConsent(id: string): Promise<ConsentRequest | undefined> {
    return this.take<ConsentRequest>(id, "consent");
  }

  async putCode(code: string, grant: AuthorizationCode): Promise<void> {
    await this.put(code, "code", grant);
  }

  async takeCode(code: string): Promise<AuthorizationCode | undefined> {
    return this.take<AuthorizationCode>(code, "code");
  }

  async putToken(token: string, kind: TokenKind, grant: TokenGrant): Promise<void> {
    await this.put(token, kind, grant);
  }

  async getAccessToken(token: string): Promise<TokenGrant | undefined> {
    return this.read<TokenGrant>(token, "access");
  }

  async takeRefreshToken(token: string): Promise<TokenGrant | undefined> {
    return this.take<TokenGrant>(token, "refresh");
  }

  async sweep(nowMs: number): Promise<void> {
    await this.grants.deleteMany({ expiresAt: { $lte: new Date(nowMs) } });
  }

  private async put(
    secret: string,
    kind: GrantKind,
    grant: { serverId: string; clientId: string; expiresAtMs: number },
  ): Promise<void> {
    const doc = {
      kind,
      serverId: grant.serverId,
      clientId: grant.clientId,
      expiresAtMs: grant.expiresAtMs,
      expiresAt: new Date(grant.expiresAtMs),
      body: plain(grant) as Record<string, unknown>,
    };
    await this.grants.replaceOne({ _id: sha256Hex(secret) }, doc, { upsert: true });
  }

  private async read<T>(secret: string, kind: GrantKind): Promise<T | undefined> {
    return (await this.grants.findOne({ _id: sha256Hex(secret), kind }))?.body as T | undefined;
  }

  /** Reads and deletes in one server-side operation: two concurrent takes cannot both get it. */
  private async take<T>(secret: string, kind: GrantKind): Promise<T | undefined> {
    return (await this.grants.findOneAndDelete({ _id: sha256Hex(secret), kind }))?.body as T | undefined;
  }
}
