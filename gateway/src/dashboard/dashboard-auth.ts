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

/**
 * Who is logged in to the dashboard: a valid session cookie whose secret key has not been revoked
 * since (checked against the key list every few seconds).
 */
export class DashboardAuth {
  /** Whether each secret key (by id) was still valid when last listed. */
  private readonly keyChecks: ExpiringCache<string, boolean>;

  constructor(
    readonly sessions: DashboardSessions,
    private readonly now: () => number = Date.now,
  ) {
    this.keyChecks = new ExpiringCache({ maxEntries: 1000, now });
  }

  /** The request's session, or null. */
  async session(ctx: Pick<RouteContext, "req" | "clients">): Promise<DashboardSession | null> {
    const session = this.sessions.verify(readCookie(ctx.req, SESSION_COOKIE));
    if (!session) return null;
    return (await this.keyStillValid(ctx, session.keyId)) ? session : null;
  }

  /**
   * The session of a dashboard API call; throws 401 `dashboard_login_required` without one, and for
   * writes 403 `csrf_token_mismatch` unless the CSRF header matches and the origin is this one.
   */
  async require(ctx: Pick<RouteContext, "req" | "url" | "baseUrl" | "clients">): Promise<DashboardSession> {
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

  private async keyStillValid(ctx: Pick<RouteContext, "clients">, keyId: string): Promise<boolean> {
    const now = this.now();
    const cached = this.keyChecks.get(keyId, now);
    if (cached !== undefined) return cached;
    const { keys } = await ctx.clients.connection.listSecretKeys({});
    for (const k of keys) this.keyChecks.set(k.id, k.revokedAtMs === 0n, now + KEY_CHECK_MS);
    const valid = keys.some((k) => k.id === keyId && k.revokedAtMs === 0n);
    this.keyChecks.set(keyId, valid, now + KEY_CHECK_MS);
    return valid;
  }
}
