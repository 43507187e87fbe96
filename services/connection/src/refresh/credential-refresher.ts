import { type Counter, exponentialDelay, MetricsRegistry, randomToken } from "@junction/platform";
import type { ConnectionServiceContext } from "../context.ts";
import { isRefreshable, openCredentials, type StoredCredentials, sealCredentials } from "../credentials.ts";
import { errors } from "../errors.ts";
import { enqueueAuthWebhook } from "../oauth/auth-webhook.ts";
import { failureCode, isTransient, type TokenFailure, type TokenSet } from "../oauth/token-client.ts";
import type { ConnectionRecord, EnvironmentRecord, IntegrationRecord } from "../store/records.ts";
import { explainRefreshFailure } from "./refresh-reasons.ts";
import { recordRefresh } from "./refresh-operation.ts";
import { requestRefresh } from "./refresh-request.ts";

/** A refusal by the token endpoint: the customer is told (auth webhook), a re-authorization clears it. */
export const REFRESH_FAILED = "refresh_failed";
/** A timeout, unreachable or garbled token endpoint: recorded, retried after a short cooldown. */
export const REFRESH_UNAVAILABLE = "refresh_unavailable";

export interface LoadedConnection {
  env: EnvironmentRecord;
  integ: IntegrationRecord;
  rec: ConnectionRecord;
}

export interface FreshCredentials {
  rec: ConnectionRecord;
  creds: StoredCredentials | null;
}

const POLL_FIRST_MS = 20;
const POLL_MAX_MS = 200;

/** Sleeps in real time: the lease's expiry is on the injected clock, the poll interval is not a schedule. */
const realDelay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Keeps access tokens fresh (spec: Authentication 8; the OAuth issue, item 3). However many callers
 * ask at once, one token request is made: callers in this process share one promise per connection,
 * and processes share a lease in the store (compare-and-set with an expiry, so that a holder that
 * dies blocks the others for at most the lease's lifetime). A process that loses the lease polls
 * the store and re-reads the token the winner wrote instead of refreshing again.
 */
export class CredentialRefresher {
  private readonly inFlight = new Map<string, Promise<FreshCredentials>>();
  /** Refreshes by integration and outcome: ok, failed, waited (another process refreshed meanwhile). */
  private readonly refreshes: Counter;

  constructor(
    private readonly ctx: ConnectionServiceContext,
    private readonly wait: (ms: number) => Promise<void> = realDelay,
  ) {
    this.refreshes = (ctx.metrics ?? new MetricsRegistry()).counter(
      "junction_token_refreshes_total",
      "Access token refreshes by integration and outcome (ok, failed, waited: another process refreshed).",
      ["integration", "outcome"],
    );
  }

  /** The connection's credentials, refreshed first when they expire within the margin or when forced. */
  async fresh(loaded: LoadedConnection, force: boolean): Promise<FreshCredentials> {
    const creds = open(this.ctx, loaded.rec);
    if (!creds) return { rec: loaded.rec, creds: null };
    // An API key or a password is served as it is: there is nothing to refresh it with.
    if (!isRefreshable(creds)) return { rec: loaded.rec, creds };
    if (!force && !this.expiresSoon(creds)) return { rec: loaded.rec, creds };
    const key = loaded.rec.id;
    const running = this.inFlight.get(key);
    if (running) return running;
    const stale = force ? creds.accessToken : null;
    const tracing = this.ctx.tracing;
    const once =
      tracing === undefined
        ? this.refreshOnce(loaded, stale)
        : tracing.span(
            "token refresh",
            { "junction.integration": loaded.integ.uniqueKey, "junction.forced": force },
            () => this.refreshOnce(loaded, stale),
          );
    const refresh = once.finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, refresh);
    return refresh;
  }

  /** `stale` is the token a forced refresh must replace; null when the refresh is for expiry. */
  private async refreshOnce(loaded: LoadedConnection, stale: string | null): Promise<FreshCredentials> {
    const { ctx } = this;
    const leaseKey = `refresh:${loaded.rec.id}`;
    const holder = randomToken(12);
    const giveUpAt = performance.now() + 2 * ctx.oauth.refreshLeaseTtlMs;
    for (let polls = 0; ; polls++) {
      const polled = polls > 0;
      const settled = await this.settled(loaded, stale);
      if (settled) {
        if (polled) this.refreshes.inc(loaded.integ.uniqueKey, "waited");
        return settled;
      }
      const now = ctx.clock.now();
      if (await ctx.store.acquireLease(leaseKey, holder, now, now + ctx.oauth.refreshLeaseTtlMs)) {
        try {
          // Re-read under the lease: the previous holder may have finished between our read and the take.
          const again = await this.settled(loaded, stale);
          if (again) return again;
          const rec = await this.reload(loaded);
          return await this.refreshHeld(loaded, rec, open(ctx, rec) as StoredCredentials, stale);
        } finally {
          await ctx.store.releaseLease(leaseKey, holder).catch((err) => {
            ctx.logger.warn("refresh lease release failed; it expires by itself", { leaseKey, error: err });
          });
        }
      }
      if (performance.now() > giveUpAt) throw errors.refreshBusy(loaded.integ.uniqueKey, loaded.rec.connectionId);
      await this.wait(exponentialDelay(polls, POLL_FIRST_MS, POLL_MAX_MS));
    }
  }

  /**
   * The answer when no token request is needed: the stored token is fresh (maybe refreshed by another
   * process), a cooldown is running, or there is nothing to refresh with. Null means: refresh.
   */
  private async settled(loaded: LoadedConnection, stale: string | null): Promise<FreshCredentials | null> {
    const rec = await this.reload(loaded);
    const creds = open(this.ctx, rec);
    if (!creds) return { rec, creds: null };
    const replaced = stale !== null && creds.accessToken !== stale;
    if (replaced || (stale === null && !this.expiresSoon(creds))) return { rec, creds };
    const now = this.ctx.clock.now();
    const cooling = rec.errors.find((e) => isRefreshError(e.type) && (e.retryAfter ?? 0) > now);
    if (cooling) return this.serveOrFail(rec, creds, stale, cooling.message);
    // Client credentials need no refresh token: a new token is asked for with the client's own.
    if (!creds.refreshToken && creds.type !== "OAUTH2_CC") {
      return this.serveOrFail(
        rec,
        creds,
        stale,
        "The access token has expired and the connection has no refresh token (the upstream issued none). Have the user authorize again.",
      );
    }
    return null;
  }

  /** Refreshes under the lease: asks for a token, records the operation, then saves the token or the failure. */
  private async refreshHeld(
    loaded: LoadedConnection,
    rec: ConnectionRecord,
    creds: StoredCredentials,
    stale: string | null,
  ): Promise<FreshCredentials> {
    const { ctx } = this;
    const { env, integ } = loaded;
    const startedAtMs = ctx.clock.now();
    const result = await requestRefresh(ctx, integ, rec, creds);
    const now = ctx.clock.now();
    const at = { environmentId: env.id, integration: integ.uniqueKey, startedAtMs, nowMs: now };
    recordRefresh(ctx.operations, at, rec, result.ok ? null : result.failure);
    if (result.ok) return this.saveToken(loaded, rec, creds, result.token, now);
    this.refreshes.inc(integ.uniqueKey, "failed");
    const message = await this.recordFailure(loaded, rec, result.failure, now);
    return this.serveOrFail(rec, creds, stale, message);
  }

  /** Stores the new token with the credentials it replaces, clearing the connection's refresh errors. */
  private async saveToken(
    loaded: LoadedConnection,
    rec: ConnectionRecord,
    creds: StoredCredentials,
    t: TokenSet,
    now: number,
  ): Promise<FreshCredentials> {
    const { ctx } = this;
    const { env, integ } = loaded;
    const next: StoredCredentials = {
      ...creds,
      accessToken: t.accessToken,
      // Google keeps the refresh token and returns none on refresh; a rotating upstream returns a new one,
      // stored with the access token in one write: until it is, the old one stays (a lost answer keeps it).
      refreshToken: t.refreshToken ?? creds.refreshToken,
      expiresAt: t.expiresIn ? now + t.expiresIn * 1000 : null,
      raw: t.raw,
      ...(t.scope ? { scope: t.scope } : {}),
    };
    const saved = await ctx.store.patchConnection(
      env.id,
      integ.uniqueKey,
      rec.connectionId,
      {
        credentialsEnc: sealCredentials(ctx.encryptor, rec, next),
        credentialsExpiresAt: next.expiresAt,
        errors: rec.errors.filter((e) => !isRefreshError(e.type)),
      },
      now,
    );
    if (!saved) throw errors.unknownConnection(integ.uniqueKey, [rec.connectionId]);
    ctx.logger.info("access token refreshed", { integration: integ.uniqueKey, connectionId: rec.connectionId });
    this.refreshes.inc(integ.uniqueKey, "ok");
    return { rec: saved, creds: next };
  }

  /** Records the failure on the connection and, when it starts a refusal, tells the customer. */
  private async recordFailure(
    loaded: LoadedConnection,
    rec: ConnectionRecord,
    failure: TokenFailure,
    now: number,
  ): Promise<string> {
    const { ctx } = this;
    const { env, integ } = loaded;
    const transient = isTransient(failure);
    const cooldown = transient ? ctx.oauth.refreshTransientCooldownMs : ctx.oauth.refreshFailureCooldownMs;
    const message = explainRefreshFailure(failure, cooldown);
    const error = {
      type: transient ? REFRESH_UNAVAILABLE : REFRESH_FAILED,
      message,
      at: now,
      upstreamError: failureCode(failure),
      upstreamErrorDescription: failure.kind === "refused" ? failure.description : "",
      retryAfter: now + cooldown,
    };
    await ctx.store.patchConnection(
      env.id,
      integ.uniqueKey,
      rec.connectionId,
      { errors: [error, ...rec.errors.filter((e) => !isRefreshError(e.type))] },
      now,
    );
    ctx.logger.warn("access token refresh failed", {
      integration: integ.uniqueKey,
      connectionId: rec.connectionId,
      upstreamError: error.upstreamError,
      transient,
    });
    // One webhook per episode: not again while the previous refusal is still on the connection.
    if (!transient && !rec.errors.some((e) => e.type === REFRESH_FAILED)) {
      await enqueueAuthWebhook(ctx, {
        env,
        integ,
        connectionId: rec.connectionId,
        operation: "refresh",
        success: false,
        authMode: ctx.providers.get(integ.provider)?.authMode,
        endUser: rec.endUser,
        tags: rec.tags,
        error: { type: error.upstreamError, description: message },
      });
    }
    return message;
  }

  /** A token that still works is served when the refresh was only early; otherwise 424. */
  private serveOrFail(
    rec: ConnectionRecord,
    creds: StoredCredentials,
    stale: string | null,
    message: string,
  ): FreshCredentials {
    if (stale === null && creds.expiresAt !== null && creds.expiresAt > this.ctx.clock.now()) return { rec, creds };
    throw errors.connectionRefreshFailed(message);
  }

  private expiresSoon(creds: StoredCredentials): boolean {
    // Unknown expiry (no expires_in): refreshed only when forced, after an upstream 401.
    return creds.expiresAt !== null && creds.expiresAt - this.ctx.oauth.refreshMarginMs <= this.ctx.clock.now();
  }

  private async reload(loaded: LoadedConnection): Promise<ConnectionRecord> {
    const rec = await this.ctx.store.getConnection(loaded.env.id, loaded.integ.uniqueKey, loaded.rec.connectionId);
    if (!rec) throw errors.unknownConnection(loaded.integ.uniqueKey, [loaded.rec.connectionId]);
    return rec;
  }
}

/** Whether a connection error type is a refresh failure (cleared by a successful refresh or authorization). */
export function isRefreshError(type: string): boolean {
  return type === REFRESH_FAILED || type === REFRESH_UNAVAILABLE;
}

function open(ctx: ConnectionServiceContext, rec: ConnectionRecord): StoredCredentials | null {
  return rec.credentialsEnc ? openCredentials(ctx.encryptor, rec, rec.credentialsEnc) : null;
}
