import { sha256Hex } from "@junction/platform";
import type {
  AuthorizationCode,
  ConsentRequest,
  McpAuthStore,
  McpOAuthClient,
  McpServerGrant,
  TokenGrant,
  TokenKind,
} from "./mcp-auth-store.ts";

/**
 * The grants in this process's memory: lost on restart and not shared between processes, so it serves
 * tests and a gateway built without a store; Junction's own processes keep them in SQLite or MongoDB
 * (mcpAuthStoreFor). Each take reads and deletes with no await between: atomic in the process. MCP
 * URLs and clients are copied in and out, as a durable store's are: a caller's object is never changed.
 */
export class MemoryMcpAuthStore implements McpAuthStore {
  private readonly servers = new Map<string, McpServerGrant>();
  private readonly clients = new Map<string, McpOAuthClient>();
  private readonly consents = new Map<string, ConsentRequest>();
  private readonly codes = new Map<string, AuthorizationCode>();
  private readonly tokens = new Map<string, TokenGrant & { kind: TokenKind }>();

  async putServer(server: McpServerGrant): Promise<void> {
    this.servers.set(server.id, structuredClone(server));
  }

  async getServer(id: string): Promise<McpServerGrant | undefined> {
    const server = this.servers.get(id);
    return server && structuredClone(server);
  }

  async revokeServer(id: string, nowMs: number): Promise<boolean> {
    const server = this.servers.get(id);
    if (!server) return false;
    server.revokedAtMs ??= nowMs;
    await this.revokeTokens(id);
    return true;
  }

  async revokeTokens(serverId: string): Promise<number> {
    let dropped = 0;
    for (const [hash, token] of this.tokens) {
      if (token.serverId !== serverId) continue;
      this.tokens.delete(hash);
      dropped++;
    }
    for (const [hash, code] of this.codes) if (code.serverId === serverId) this.codes.delete(hash);
    for (const [id, consent] of this.consents) if (consent.serverId === serverId) this.consents.delete(id);
    return dropped;
  }

  async putClient(client: McpOAuthClient): Promise<void> {
    this.clients.set(client.clientId, structuredClone(client));
  }

  async getClient(clientId: string): Promise<McpOAuthClient | undefined> {
    const client = this.clients.get(clientId);
    return client && structuredClone(client);
  }

  async dynamicClientCount(): Promise<number> {
    let n = 0;
    for (const c of this.clients.values()) if (c.kind === "dynamic") n++;
    return n;
  }

  async forgetUnusedClients(savedBeforeMs: number): Promise<number> {
    const inUse = new Set<string>();
    for (const map of [this.consents, this.codes, this.tokens] as Map<string, { clientId: string }>[]) {
      for (const grant of map.values()) inUse.add(grant.clientId);
    }
    let forgotten = 0;
    for (const [id, client] of this.clients) {
      if (client.kind !== "dynamic" || client.savedAtMs >= savedBeforeMs || inUse.has(id)) continue;
      this.clients.delete(id);
      forgotten++;
    }
    return forgotten;
  }

  async putConsent(request: ConsentRequest): Promise<void> {
    this.consents.set(request.id, request);
  }

  async getConsent(id: string): Promise<ConsentRequest | undefined> {
    return this.consents.get(id);
  }

  async takeConsent(id: string): Promise<ConsentRequest | undefined> {
    const found = this.consents.get(id);
    this.consents.delete(id);
    return found;
  }

  async putCode(code: string, grant: AuthorizationCode): Promise<void> {
    this.codes.set(sha256Hex(code), grant);
  }

  async takeCode(code: string): Promise<AuthorizationCode | undefined> {
    const hash = sha256Hex(code);
    const found = this.codes.get(hash);
    this.codes.delete(hash);
    return found;
  }

  async putToken(token: string, kind: TokenKind, grant: TokenGrant): Promise<void> {
    this.tokens.set(sha256Hex(token), { ...grant, kind });
  }

  async getAccessToken(token: string): Promise<TokenGrant | undefined> {
    const found = this.tokens.get(sha256Hex(token));
    return found?.kind === "access" ? found : undefined;
  }

  async takeRefreshToken(token: string): Promise<TokenGrant | undefined> {
    const hash = sha256Hex(token);
    const found = this.tokens.get(hash);
    if (found?.kind !== "refresh") return undefined;
    this.tokens.delete(hash);
    return found;
  }

  async sweep(nowMs: number): Promise<void> {
    for (const map of [this.consents, this.codes, this.tokens] as Map<string, { expiresAtMs: number }>[]) {
      for (const [key, value] of map) if (value.expiresAtMs <= nowMs) map.delete(key);
    }
  }
}
