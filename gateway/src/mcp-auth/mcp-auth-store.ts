import { randomBytes } from "node:crypto";

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
 * value is shown once, to the client. `take*` reads a consent request, a code or a refresh token once
 * and atomically: of two concurrent takes of one value (in one process or in two gateway processes
 * sharing the store), exactly one gets it, so a code is redeemed once and a refresh token rotates once.
 */
export interface McpAuthStore {
  putServer(server: McpServerGrant): Promise<void>;
  getServer(id: string): Promise<McpServerGrant | undefined>;
  /** Marks the MCP URL revoked and drops every code and token issued for it. */
  revokeServer(id: string, nowMs: number): Promise<boolean>;
  /** Drops every code and token of the MCP URL; how many tokens were dropped. */
  revokeTokens(serverId: string): Promise<number>;
  putClient(client: McpOAuthClient): Promise<void>;
  getClient(clientId: string): Promise<McpOAuthClient | undefined>;
  dynamicClientCount(): Promise<number>;
  /**
   * Forgets registered clients saved before `savedBeforeMs` that hold no consent request, code or
   * token (registered and never used); how many.
   */
  forgetUnusedClients(savedBeforeMs: number): Promise<number>;
  putConsent(request: ConsentRequest): Promise<void>;
  takeConsent(id: string): Promise<ConsentRequest | undefined>;
  getConsent(id: string): Promise<ConsentRequest | undefined>;
  putCode(code: string, grant: AuthorizationCode): Promise<void>;
  takeCode(code: string): Promise<AuthorizationCode | undefined>;
  putToken(token: string, kind: TokenKind, grant: TokenGrant): Promise<void>;
  getAccessToken(token: string): Promise<TokenGrant | undefined>;
  takeRefreshToken(token: string): Promise<TokenGrant | undefined>;
  /** Forgets what expired before `nowMs`. */
  sweep(nowMs: number): Promise<void>;
}

export type TokenKind = "access" | "refresh";

/** A fresh secret with a readable prefix (a code, a token, an MCP URL's id). */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}
