import { Code } from "@connectrpc/connect";
import { ExpiringCache, JunctionError, unauthenticated } from "@junction/platform";
import type { RouteContext } from "../router.ts";
import type { DashboardSession, DashboardSessions } from "./dashboard-sessions.ts";

export const SESSION_COOKIE = "junction_dashboard";
/** Header the dashboard's pages send the CSRF token in, on every write. */
export const CSRF_HEADER = "x-junction-csrf";
/** A revoked secret key ends its dashboard sessions within this long (as the Authenticator's cache). */
const KEY_CHECK_MS = 5000;

/** The value of one cookie in a Cookie header. */
export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** Set-Cookie for the session (value "" with Max-Age=0 clears it). Secure whenever the dashboard is served over https. */
export function sessionCookie(ctx: Pick<RouteContext, "url" | "baseUrl">, value: string, maxAgeMs: number): string {
  const secure = ctx.url.protocol === "https:" || ctx.baseUrl.startsWith("https:");
  return [
    `${SESSION_COOKIE}=${value}`,
    "Path=/dashboard",
    `Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}`,
    "HttpOnly",
    "SameSite=Strict",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/** Whether a request's Origin (when sent) is this gateway's own: writes from another site are refused. */
export function sameOrigin(ctx: Pick<RouteContext, "req" | "url" | "baseUrl">): boolean {
  const origin = ctx.req.headers.get("origin");
  if (origin === null) return true;
  return origin === ctx.url.origin || origin === new URL(ctx.baseUrl).origin;
}

/** A session and the name of the secret key it runs on (what a run it starts is recorded as). */
export type NamedSession = DashboardSession & { keyName: string };

/**
 * Who is logged in to the dashboard: a valid session cookie whose secret key has not been revoked
 * since (checked against the key list every few seconds).
 */
export class DashboardAuth {
  /** Each secret key (by id) when last listed: its name while it is valid, null once revoked. */
  private readonly keyChecks: ExpiringCache<string, string | null>;

  constructor(
    readonly sessions: DashboardSessions,
    private readonly now: () => number = Date.now,
  ) {
    this.keyChecks = new ExpiringCache({ maxEntries: 1000, now });
  }

  /** The request's session, with its key's name, or null. */
  async session(ctx: Pick<RouteContext, "req" | "clients">): Promise<NamedSession | null> {
    const session = this.sessions.verify(readCookie(ctx.req, SESSION_COOKIE));
    if (!session) return null;
    const keyName = await this.validKeyName(ctx, session.keyId);
    return keyName === null ? null : { ...session, keyName };
  }

  /**
   * The session of a dashboard API call; throws 401 `dashboard_login_required` without one, and for
   * writes 403 `csrf_token_mismatch` unless the CSRF header matches and the origin is this one.
   */
  async require(ctx: Pick<RouteContext, "req" | "url" | "baseUrl" | "clients">): Promise<NamedSession> {
    const session = await this.session(ctx);
    if (!session) {
      throw unauthenticated("dashboard_login_required", "Log in to the dashboard first (/dashboard/login).");
    }
    const write = ctx.req.method !== "GET" && ctx.req.method !== "HEAD";
    if (write && (!sameOrigin(ctx) || !this.sessions.checkCsrf(session, ctx.req.headers.get(CSRF_HEADER)))) {
      throw new JunctionError(
        "csrf_token_mismatch",
        `Dashboard writes need the page's CSRF token in ${CSRF_HEADER}, from this origin; reload the dashboard.`,
        Code.PermissionDenied,
      );
    }
    return session;
  }

  /** The key's name while it is valid, null once it is revoked (or unknown). */
  private async validKeyName(ctx: Pick<RouteContext, "clients">, keyId: string): Promise<string | null> {
    const now = this.now();
    const cached = this.keyChecks.get(keyId, now);
    if (cached !== undefined) return cached;
    const { keys } = await ctx.clients.connection.listSecretKeys({});
    for (const k of keys) this.keyChecks.set(k.id, k.revokedAtMs === 0n ? k.name : null, now + KEY_CHECK_MS);
    const key = keys.find((k) => k.id === keyId && k.revokedAtMs === 0n);
    this.keyChecks.set(keyId, key ? key.name : null, now + KEY_CHECK_MS);
    return key ? key.name : null;
  }
}
