import { randomUUID } from "node:crypto";
import { randomId } from "../../fake-kit/random-id.ts";

/** A client registered with the fake (the sandbox's, or a test's); any redirect URI unless listed. */
export interface MicrosoftClient {
  clientId: string;
  clientSecret: string;
  redirectUris?: string[];
}

/** A user of the fake directory, as Graph's /v1.0/me shows them. */
export interface MicrosoftUser {
  id: string;
  mail: string;
  userPrincipalName: string;
  displayName: string;
  /** The directory the user belongs to (`tid`, and `tenantId` on notifications). */
  tenantId: string;
}

export interface MicrosoftCode {
  code: string;
  clientId: string;
  redirectUri: string;
  email: string;
  scopes: string[];
  tenant: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  issuedAt: number;
  used: boolean;
}

export interface MicrosoftToken {
  token: string;
  email: string;
  clientId: string;
  scopes: string[];
  /** The `{tenant}` path segment it was issued through. */
  tenant: string;
  /** Access tokens only. */
  expiresAt?: number;
  revoked: boolean;
}

/**
 * "Authorization codes are short lived, typically expiring after about 10 minutes"
 * (https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow).
 */
const CODE_TTL_MS = 10 * 60 * 1000;
/** The fake directory's tenant id (a GUID, as `tid`). */
export const FAKE_TENANT_ID = "5f1c2a9e-8d4b-4c1e-9a3f-0b7d6e2c4a11";

/** What `IdentityStore.save` returns. */
export interface SavedIdentityStore {
  users?: MicrosoftUser[];
  clients?: MicrosoftClient[];
  accessTokens?: MicrosoftToken[];
  refreshTokens?: MicrosoftToken[];
}

/** The identity platform's users, clients and everything it issued. */
export class IdentityStore {
  readonly users = new Map<string, MicrosoftUser>();
  readonly clients = new Map<string, MicrosoftClient>();
  readonly codes = new Map<string, MicrosoftCode>();
  readonly accessTokens = new Map<string, MicrosoftToken>();
  readonly refreshTokens = new Map<string, MicrosoftToken>();

  constructor(private readonly now: () => number) {}

  ensureUser(email: string): MicrosoftUser {
    const key = email.toLowerCase();
    const known = this.users.get(key);
    if (known) return known;
    const user: MicrosoftUser = {
      id: randomUUID(),
      mail: key,
      userPrincipalName: key,
      displayName: key.split("@")[0] ?? key,
      tenantId: FAKE_TENANT_ID,
    };
    this.users.set(key, user);
    return user;
  }

  issueCode(fields: Omit<MicrosoftCode, "code" | "issuedAt" | "used">): MicrosoftCode {
    const code: MicrosoftCode = { ...fields, code: randomId("M.C5_BAY.2.", 48), issuedAt: this.now(), used: false };
    this.codes.set(code.code, code);
    return code;
  }

  /** A live, unused code, marked used; or why not (AADSTS numbers for the error). */
  redeem(value: string): MicrosoftCode | "expired" | "used" | "unknown" {
    const code = this.codes.get(value);
    if (!code) return "unknown";
    if (code.used) return "used";
    if (this.now() - code.issuedAt > CODE_TTL_MS) return "expired";
    code.used = true;
    return code;
  }

  issueAccessToken(grant: Omit<MicrosoftToken, "token" | "expiresAt" | "revoked">, ttlSeconds: number): MicrosoftToken {
    const record = { ...grant, token: randomId("EwA.fake-", 40), expiresAt: this.now() + ttlSeconds * 1000 };
    const token: MicrosoftToken = { ...record, revoked: false };
    this.accessTokens.set(token.token, token);
    return token;
  }

  issueRefreshToken(grant: Omit<MicrosoftToken, "token" | "expiresAt" | "revoked">): MicrosoftToken {
    const token: MicrosoftToken = { ...grant, token: randomId("M.C5_BL2.0.", 64), revoked: false };
    this.refreshTokens.set(token.token, token);
    return token;
  }

  /** Users, clients and live tokens as JSON (codes are short-lived and left out). */
  save(): SavedIdentityStore {
    return {
      users: [...this.users.values()],
      clients: [...this.clients.values()],
      accessTokens: [...this.accessTokens.values()].filter((t) => this.validAccessToken(t.token) !== undefined),
      refreshTokens: [...this.refreshTokens.values()].filter((t) => !t.revoked),
    };
  }

  /** Puts back what `save` returned; clients registered at start keep their current registration. */
  restore(saved: SavedIdentityStore): void {
    for (const user of saved.users ?? []) this.users.set(user.mail, user);
    for (const client of saved.clients ?? [])
      if (!this.clients.has(client.clientId)) this.clients.set(client.clientId, client);
    for (const token of saved.accessTokens ?? []) this.accessTokens.set(token.token, token);
    for (const token of saved.refreshTokens ?? []) this.refreshTokens.set(token.token, token);
  }

  validAccessToken(value: string): MicrosoftToken | undefined {
    const token = this.accessTokens.get(value);
    return token && !token.revoked && (token.expiresAt ?? 0) > this.now() ? token : undefined;
  }
}
