import type { Database } from "bun:sqlite";
import { migrate, sha256Hex } from "@junction/platform";
import type {
  AuthorizationCode,
  ConsentRequest,
  McpAuthStore,
  McpOAuthClient,
  McpServerGrant,
  TokenGrant,
  TokenKind,
} from "./mcp-auth-store.ts";

/** Append-only: never edit a shipped migration. */
const MIGRATIONS = [
  `CREATE TABLE mcp_servers (id TEXT PRIMARY KEY, body TEXT NOT NULL);
   CREATE TABLE mcp_clients (client_id TEXT PRIMARY KEY, kind TEXT NOT NULL, body TEXT NOT NULL);
   CREATE TABLE mcp_grants (hash TEXT PRIMARY KEY, kind TEXT NOT NULL, server_id TEXT NOT NULL,
     client_id TEXT NOT NULL, expires_at_ms INTEGER NOT NULL, body TEXT NOT NULL);
   CREATE INDEX mcp_grants_client ON mcp_grants (client_id);
   CREATE INDEX mcp_grants_server ON mcp_grants (server_id);
   CREATE INDEX mcp_grants_expiry ON mcp_grants (expires_at_ms);`,
];

type GrantKind = TokenKind | "code" | "consent";

/**
 * The MCP front door's grants in SQLite: the embedded process's one file, or a distributed gateway's
 * `gateway.sqlite` (WAL, so several gateway processes on one host share it). They outlive a restart.
 * Consent requests, codes and tokens are keyed by their SHA-256, never by their value; a take is one
 * `DELETE … RETURNING`, atomic across connections and processes.
 */
export class SqliteMcpAuthStore implements McpAuthStore {
  constructor(private readonly db: Database) {
    migrate(db, "mcp_auth", MIGRATIONS);
  }

  async putServer(server: McpServerGrant): Promise<void> {
    this.writeServer(server);
  }

  async getServer(id: string): Promise<McpServerGrant | undefined> {
    return this.readServer(id);
  }

  async revokeServer(id: string, nowMs: number): Promise<boolean> {
    // IMMEDIATE: the read and the write under one write lock, so another process cannot write between.
    return this.db
      .transaction(() => {
        const server = this.readServer(id);
        if (!server) return false;
        server.revokedAtMs ??= nowMs;
        this.writeServer(server);
        this.dropGrants(id);
        return true;
      })
      .immediate();
  }

  async revokeTokens(serverId: string): Promise<number> {
    return this.db.transaction(() => this.dropGrants(serverId)).immediate();
  }

  async putClient(client: McpOAuthClient): Promise<void> {
    this.db
      .query("INSERT OR REPLACE INTO mcp_clients (client_id, kind, body) VALUES (?, ?, ?)")
      .run(client.clientId, client.kind, JSON.stringify(client));
  }

  async getClient(clientId: string): Promise<McpOAuthClient | undefined> {
    const row = this.db
      .query<{ body: string }, [string]>("SELECT body FROM mcp_clients WHERE client_id = ?")
      .get(clientId);
    return row ? (JSON.parse(row.body) as McpOAuthClient) : undefined;
  }

  async dynamicClientCount(): Promise<number> {
    return (
      this.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM mcp_clients WHERE kind = 'dynamic'").get()?.n ?? 0
    );
  }

  async putConsent(request: ConsentRequest): Promise<void> {
    this.put(request.id, "consent", request);
  }

  async getConsent(id: string): Promise<ConsentRequest | undefined> {
    return this.read<ConsentRequest>(id, "consent");
  }

  async takeConsent(id: string): Promise<ConsentRequest | undefined> {
    return this.take<ConsentRequest>(id, "consent");
  }

  async putCode(code: string, grant: AuthorizationCode): Promise<void> {
    this.put(code, "code", grant);
  }

  async takeCode(code: string): Promise<AuthorizationCode | undefined> {
    return this.take<AuthorizationCode>(code, "code");
  }

  async putToken(token: string, kind: TokenKind, grant: TokenGrant): Promise<void> {
    this.put(token, kind, grant);
  }

  async getAccessToken(token: string): Promise<TokenGrant | undefined> {
    return this.read<TokenGrant>(token, "access");
  }

  async takeRefreshToken(token: string): Promise<TokenGrant | undefined> {
    return this.take<TokenGrant>(token, "refresh");
  }

  async sweep(nowMs: number): Promise<void> {
    this.db.query("DELETE FROM mcp_grants WHERE expires_at_ms <= ?").run(nowMs);
  }

  async forgetUnusedClients(savedBeforeMs: number): Promise<number> {
    const res = this.db
      .query(
        `DELETE FROM mcp_clients WHERE kind = 'dynamic' AND json_extract(body, '$.savedAtMs') < ?
         AND NOT EXISTS (SELECT 1 FROM mcp_grants g WHERE g.client_id = mcp_clients.client_id)`,
      )
      .run(savedBeforeMs);
    return res.changes;
  }

  private readServer(id: string): McpServerGrant | undefined {
    const row = this.db.query<{ body: string }, [string]>("SELECT body FROM mcp_servers WHERE id = ?").get(id);
    return row ? (JSON.parse(row.body) as McpServerGrant) : undefined;
  }

  private writeServer(server: McpServerGrant): void {
    this.db.query("INSERT OR REPLACE INTO mcp_servers (id, body) VALUES (?, ?)").run(server.id, JSON.stringify(server));
  }

  /** Deletes the URL's consent requests, codes and tokens; how many were tokens. */
  private dropGrants(serverId: string): number {
    const tokens = this.db
      .query<{ n: number }, [string]>(
        "SELECT COUNT(*) AS n FROM mcp_grants WHERE server_id = ? AND kind IN ('access', 'refresh')",
      )
      .get(serverId);
    this.db.query("DELETE FROM mcp_grants WHERE server_id = ?").run(serverId);
    return tokens?.n ?? 0;
  }

  private put(
    secret: string,
    kind: GrantKind,
    grant: { serverId: string; clientId: string; expiresAtMs: number },
  ): void {
    this.db
      .query(
        "INSERT OR REPLACE INTO mcp_grants (hash, kind, server_id, client_id, expires_at_ms, body) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(sha256Hex(secret), kind, grant.serverId, grant.clientId, grant.expiresAtMs, JSON.stringify(grant));
  }

  private read<T>(secret: string, kind: GrantKind): T | undefined {
    const row = this.db
      .query<{ body: string }, [string, string]>("SELECT body FROM mcp_grants WHERE hash = ? AND kind = ?")
      .get(sha256Hex(secret), kind);
    return row ? (JSON.parse(row.body) as T) : undefined;
  }

  /** Reads and deletes in one statement: two concurrent takes cannot both get it. */
  private take<T>(secret: string, kind: GrantKind): T | undefined {
    const row = this.db
      .query<{ body: string }, [string, string]>("DELETE FROM mcp_grants WHERE hash = ? AND kind = ? RETURNING body")
      .get(sha256Hex(secret), kind);
    return row ? (JSON.parse(row.body) as T) : undefined;
  }
}
