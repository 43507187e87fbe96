import { randomBytes } from "node:crypto";
import { constantTimeEqual, hmacSha256 } from "@junction/platform";

/** A dashboard session: who logged in, with which secret key, until when. */
export interface DashboardSession {
  environmentId: string;
  /** Id of the secret key used to log in (never the key): revoking that key ends the session. */
  keyId: string;
  expiresAtMs: number;
  /** Random per login; the CSRF token and the logout list are derived from it. */
  nonce: string;
}

export interface DashboardSessionsOptions {
  /** HMAC key for session cookies; random per process when not given (sessions end on restart). */
  signingKey?: Uint8Array;
  ttlMs?: number;
  now?: () => number;
}

const VERSION = "v1";
const DEFAULT_TTL_MS = 12 * 3_600_000;
/** At most this many logged-out sessions are remembered until they expire on their own. */
const MAX_LOGGED_OUT = 10_000;

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url");

/**
 * Signed, expiring dashboard sessions, kept in a cookie: `v1.<payload>.<HMAC-SHA256>`. The HMAC key is
 * made here (never derived from a secret key), so the cookie proves only that this gateway issued it.
 * The CSRF token is a second HMAC over the session's nonce: a page that can read it (same origin) may
 * send it back in a header, a cross-site form cannot.
 */
export class DashboardSessions {
  private readonly key: Uint8Array;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly loggedOut = new Map<string, number>();

  constructor(options: DashboardSessionsOptions = {}) {
    this.key = options.signingKey ?? randomBytes(32);
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** A new session for a verified secret key, and its cookie value. */
  issue(environmentId: string, keyId: string): { session: DashboardSession; cookieValue: string } {
    const session: DashboardSession = {
      environmentId,
      keyId,
      expiresAtMs: this.now() + this.ttlMs,
      nonce: randomBytes(16).toString("base64url"),
    };
    const payload = b64(
      JSON.stringify({ e: session.environmentId, k: session.keyId, x: session.expiresAtMs, n: session.nonce }),
    );
    return { session, cookieValue: `${VERSION}.${payload}.${this.sign(`${VERSION}.${payload}`)}` };
  }

  /** The session a cookie value holds, or null when it is malformed, forged, expired or logged out. */
  verify(cookieValue: string | undefined): DashboardSession | null {
    if (!cookieValue || cookieValue.length > 1024) return null;
    const parts = cookieValue.split(".");
    if (parts.length !== 3 || parts[0] !== VERSION) return null;
    const [version, payload, signature] = parts as [string, string, string];
    if (!constantTimeEqual(signature, this.sign(`${version}.${payload}`))) return null;
    let raw: unknown;
    try {
      raw = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      return null;
    }
    const p = raw as { e?: unknown; k?: unknown; x?: unknown; n?: unknown };
    if (typeof p.e !== "string" || typeof p.k !== "string" || typeof p.x !== "number" || typeof p.n !== "string") {
      return null;
    }
    if (p.x <= this.now() || this.loggedOut.has(p.n)) return null;
    return { environmentId: p.e, keyId: p.k, expiresAtMs: p.x, nonce: p.n };
  }

  /** The CSRF token of a session (sent back by the page in X-Junction-Csrf on writes). */
  csrfToken(session: DashboardSession): string {
    return this.sign(`csrf.${session.nonce}`);
  }

  /** Whether `token` is the session's CSRF token. */
  checkCsrf(session: DashboardSession, token: string | null): boolean {
    return token !== null && constantTimeEqual(token, this.csrfToken(session));
  }

  /** Ends a session before it expires (its cookie stops verifying in this process). */
  logOut(session: DashboardSession): void {
    const now = this.now();
    for (const [nonce, until] of this.loggedOut) if (until <= now) this.loggedOut.delete(nonce);
    if (this.loggedOut.size >= MAX_LOGGED_OUT) this.loggedOut.delete(this.loggedOut.keys().next().value as string);
    this.loggedOut.set(session.nonce, session.expiresAtMs);
  }

  get ttl(): number {
    return this.ttlMs;
  }

  private sign(data: string): string {
    return b64(hmacSha256(this.key, data));
  }
}
