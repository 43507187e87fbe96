import { randomBytes } from "node:crypto";
import { sha256Hex } from "@junction/platform";

/** An MCP URL the customer issued to one end user: `<base>/mcp/u/<id>`. */
export interface McpServerGrant {
  id: string;
  environmentId: string;
  endUser: { id: string; email?: string; displayName?: string };
  /** Integrations (unique keys) its tools come from; empty: every integration of the environment. */
  integrations: string[];
  createdAtMs: number;
  revokedAtMs?: number;
}

/** An MCP client Junction knows: registered dynamically or read from its client ID metadata document. */
export interface McpOAuthClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  /** When Junction read or registered it (a metadata document is read again after its cache time). */
  savedAtMs: number;
  kind: "dynamic" | "metadata_document";
}

/** An authorization request waiting for the end user's Allow or Deny on the consent page. */
export interface ConsentRequest {
  id: string;
  clientId: string;
  serverId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | undefined;
  resource: string;
  expiresAtMs: number;
}

/** What an authorization code, an access token or a refresh token was issued for. */
export interface TokenGrant {
  clientId: string;
  serverId: string;
  /** The MCP URL the token is for (its audience, RFC 8707). */
  resource: string;
  expiresAtMs: number;
}

export interface AuthorizationCode extends TokenGrant {
  redirectUri: string;
  codeChallenge: string;
}

/**
 * Where the MCP front door keeps its grants. Codes and tokens are kept by their SHA-256 only: the
 * value is shown once, to the client. `take*` reads a code or refresh token once (single use).
 */
export interface McpAuthStore {
  putServer(server: McpServerGrant): void;
  getServer(id: string): McpServerGrant | undefined;
  /** Marks the MCP URL revoked and drops every code and token issued for it. */
  revokeServer(id: string, nowMs: number): boolean;
  /** Drops every code and token of the MCP URL; how many tokens were dropped. */
  revokeTokens(serverId: string): number;
  putClient(client: McpOAuthClient): void;
  getClient(clientId: string): McpOAuthClient | undefined;
  dynamicClientCount(): number;
  /**
   * Forgets registered clients saved before `savedBeforeMs` that hold no consent request, code or
   * token (registered and never used); how many.
   */
  forgetUnusedClients(savedBeforeMs: number): number;
  putConsent(request: ConsentRequest): void;
  takeConsent(id: string): ConsentRequest | undefined;
  getConsent(id: string): ConsentRequest | undefined;
  putCode(code: string, grant: AuthorizationCode): void;
  takeCode(code: string): AuthorizationCode | undefined;
  putToken(token: string, kind: TokenKind, grant: TokenGrant): void;
  getAccessToken(token: string): TokenGrant | undefined;
  takeRefreshToken(token: string): TokenGrant | undefined;
  /** Forgets what expired before `nowMs`. */
  sweep(nowMs: number): void;
}

export type TokenKind = "access" | "refresh";

/** A fresh secret with a readable prefix (a code, a token, an MCP URL's id). */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/**
 * The grants in this process's memory (a distributed gateway's): lost on restart and not shared between
 * gateway processes, so an MCP client authorizes again after either (docs/agents.md says so). The
 * embedded process uses SqliteMcpAuthStore.
 */
export class MemoryMcpAuthStore implements McpAuthStore {
  private readonly servers = new Map<string, McpServerGrant>();
  private readonly clients = new Map<string, McpOAuthClient>();
  private readonly consents = new Map<string, ConsentRequest>();
  private readonly codes = new Map<string, AuthorizationCode>();
  private readonly tokens = new Map<string, TokenGrant & { kind: TokenKind }>();

  putServer(server: McpServerGrant): void {
    this.servers.set(server.id, server);
  }

  getServer(id: string): McpServerGrant | undefined {
    return this.servers.get(id);
  }

  revokeServer(id: string, nowMs: number): boolean {
    const server = this.servers.get(id);
    if (!server) return false;
    server.revokedAtMs ??= nowMs;
    this.revokeTokens(id);
    return true;
  }

  revokeTokens(serverId: string): number {
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

  putClient(client: McpOAuthClient): void {
    this.clients.set(client.clientId, client);
  }

  getClient(clientId: string): McpOAuthClient | undefined {
    return this.clients.get(clientId);
  }

  dynamicClientCount(): number {
    let n = 0;
    for (const c of this.clients.values()) if (c.kind === "dynamic") n++;
    return n;
  }

  forgetUnusedClients(savedBeforeMs: number): number {
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

  putConsent(request: ConsentRequest): void {
    this.consents.set(request.id, request);
  }

  getConsent(id: string): ConsentRequest | undefined {
    return this.consents.get(id);
  }

  takeConsent(id: string): ConsentRequest | undefined {
    const found = this.consents.get(id);
    this.consents.delete(id);
    return found;
  }

  putCode(code: string, grant: AuthorizationCode): void {
    this.codes.set(sha256Hex(code), grant);
  }

  takeCode(code: string): AuthorizationCode | undefined {
    const hash = sha256Hex(code);
    const found = this.codes.get(hash);
    this.codes.delete(hash);
    return found;
  }

  putToken(token: string, kind: TokenKind, grant: TokenGrant): void {
    this.tokens.set(sha256Hex(token), { ...grant, kind });
  }

  getAccessToken(token: string): TokenGrant | undefined {
    const found = this.tokens.get(sha256Hex(token));
    return found?.kind === "access" ? found : undefined;
  }

  takeRefreshToken(token: string): TokenGrant | undefined {
    const hash = sha256Hex(token);
    const found = this.tokens.get(hash);
    if (found?.kind !== "refresh") return undefined;
    this.tokens.delete(hash);
    return found;
  }

  sweep(nowMs: number): void {
    for (const map of [this.consents, this.codes, this.tokens] as Map<string, { expiresAtMs: number }>[]) {
      for (const [key, value] of map) if (value.expiresAtMs <= nowMs) map.delete(key);
    }
  }
}
