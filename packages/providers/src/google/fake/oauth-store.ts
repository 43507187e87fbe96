import { randomId } from "../../fake-kit/random-id.ts";

export interface ClientRegistration {
  clientId: string;
  clientSecret: string;
  /** When set, `redirect_uri` must equal one of these exactly; otherwise any URI is accepted. */
  redirectUris?: string[];
}

export interface FakeUser {
  email: string;
  /** Stable subject id, as in Google's `sub` claim. */
  sub: string;
  name: string;
  emailVerified: boolean;
  /** Calendars besides the primary one (whose id is the email) that this user may read and watch. */
  calendars: string[];
  messagesTotal: number;
  threadsTotal: number;
  historyId: number;
}

export type NewUser = Partial<FakeUser> & { email: string };

export interface AuthorizationCode {
  code: string;
  clientId: string;
  redirectUri: string;
  email: string;
  scopes: string[];
  codeChallenge?: string;
  codeChallengeMethod?: string;
  offline: boolean;
  nonce?: string;
  issuedAt: number;
  used: boolean;
}

export interface AccessTokenRecord {
  token: string;
  email: string;
  clientId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface RefreshTokenRecord {
  token: string;
  email: string;
  clientId: string;
  scopes: string[];
  issuedAt: number;
  revoked: boolean;
}

/** What `OAuthStore.save` returns. */
export interface SavedOAuthStore {
  users?: FakeUser[];
  clients?: ClientRegistration[];
  accessTokens?: AccessTokenRecord[];
  refreshTokens?: RefreshTokenRecord[];
  grants?: [string, string[]][];
}

/** Google's authorization codes live about ten minutes. */
export const CODE_TTL_MS = 10 * 60 * 1000;

/** Users, clients, consents and every credential the fake has issued. */
export class OAuthStore {
  readonly users = new Map<string, FakeUser>();
  readonly clients = new Map<string, ClientRegistration>();
  readonly codes = new Map<string, AuthorizationCode>();
  readonly accessTokens = new Map<string, AccessTokenRecord>();
  readonly refreshTokens = new Map<string, RefreshTokenRecord>();
  /** Scopes each user has granted each client, for `include_granted_scopes`. */
  private readonly grants = new Map<string, Set<string>>();

  constructor(private readonly now: () => number) {}

  addUser(input: NewUser): FakeUser {
    const email = input.email.toLowerCase();
    const user: FakeUser = {
      sub: String(100000000000000000000n + BigInt(this.users.size + 1)),
      name: email.split("@")[0] ?? email,
      emailVerified: true,
      calendars: [],
      messagesTotal: 0,
      threadsTotal: 0,
      historyId: 1000,
      ...this.users.get(email),
      ...input,
      email,
    };
    this.users.set(email, user);
    return user;
  }

  /** The user for `email`, created on first sight: anyone can sign in at the consent step. */
  ensureUser(email: string): FakeUser {
    return this.users.get(email.toLowerCase()) ?? this.addUser({ email });
  }

  registerClient(client: ClientRegistration): ClientRegistration {
    this.clients.set(client.clientId, client);
    return client;
  }

  /** Records consent and returns everything granted so far (for incremental authorization). */
  grant(clientId: string, email: string, scopes: string[]): string[] {
    const key = `${clientId}\n${email}`;
    const granted = this.grants.get(key) ?? new Set<string>();
    for (const scope of scopes) granted.add(scope);
    this.grants.set(key, granted);
    return [...granted];
  }

  /** Scopes the user has granted the client so far. */
  granted(clientId: string, email: string): string[] {
    return [...(this.grants.get(`${clientId}\n${email}`) ?? [])];
  }

  issueCode(fields: Omit<AuthorizationCode, "code" | "issuedAt" | "used">): AuthorizationCode {
    const code: AuthorizationCode = { ...fields, code: randomId("4/0A"), issuedAt: this.now(), used: false };
    this.codes.set(code.code, code);
    return code;
  }

  issueAccessToken(email: string, clientId: string, scopes: string[], ttlSeconds: number): AccessTokenRecord {
    const record: AccessTokenRecord = {
      token: randomId("ya29.fake-", 32),
      email,
      clientId,
      scopes,
      expiresAt: this.now() + ttlSeconds * 1000,
      revoked: false,
    };
    this.accessTokens.set(record.token, record);
    return record;
  }

  issueRefreshToken(email: string, clientId: string, scopes: string[]): RefreshTokenRecord {
    const record: RefreshTokenRecord = {
      token: randomId("1//fake-", 32),
      email,
      clientId,
      scopes,
      issuedAt: this.now(),
      revoked: false,
    };
    this.refreshTokens.set(record.token, record);
    return record;
  }

  /** The access token if it exists, is unrevoked and unexpired by the injected clock. */
  validAccessToken(token: string): AccessTokenRecord | undefined {
    const record = this.accessTokens.get(token);
    if (!record || record.revoked || record.expiresAt <= this.now()) return undefined;
    return record;
  }

  revokeRefreshToken(token: string): boolean {
    const record = this.refreshTokens.get(token);
    if (!record) return false;
    record.revoked = true;
    return true;
  }

  /** What "remove third-party access" does: every token of the user dies and consent is forgotten. */
  revokeAllFor(email: string): number {
    const target = email.toLowerCase();
    let revoked = 0;
    for (const record of [...this.refreshTokens.values(), ...this.accessTokens.values()]) {
      if (record.email !== target || record.revoked) continue;
      record.revoked = true;
      revoked++;
    }
    for (const key of this.grants.keys()) if (key.endsWith(`\n${target}`)) this.grants.delete(key);
    return revoked;
  }

  /** Users, clients, consents and live credentials as JSON (codes are short-lived and left out). */
  save(): SavedOAuthStore {
    return {
      users: [...this.users.values()],
      clients: [...this.clients.values()],
      accessTokens: [...this.accessTokens.values()].filter((t) => !t.revoked && t.expiresAt > this.now()),
      refreshTokens: [...this.refreshTokens.values()].filter((t) => !t.revoked),
      grants: [...this.grants].map(([key, scopes]) => [key, [...scopes]]),
    };
  }

  /** Puts back what `save` returned; clients registered at start keep their current registration. */
  restore(saved: SavedOAuthStore): void {
    for (const user of saved.users ?? []) this.users.set(user.email, user);
    for (const client of saved.clients ?? []) if (!this.clients.has(client.clientId)) this.registerClient(client);
    for (const token of saved.accessTokens ?? []) this.accessTokens.set(token.token, token);
    for (const token of saved.refreshTokens ?? []) this.refreshTokens.set(token.token, token);
    for (const [key, scopes] of saved.grants ?? []) this.grants.set(key, new Set(scopes));
  }

  /** Makes matching access tokens expire now, to drive 401 → refresh → retry without moving the clock. */
  expireAccessTokens(email?: string): number {
    let expired = 0;
    for (const record of this.accessTokens.values()) {
      if (email && record.email !== email.toLowerCase()) continue;
      if (record.expiresAt > this.now()) expired++;
      record.expiresAt = Math.min(record.expiresAt, this.now());
    }
    return expired;
  }
}
