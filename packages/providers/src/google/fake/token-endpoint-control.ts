/** What the token endpoint does instead of (or on top of) its normal answer, for failure tests. */
export type TokenEndpointBehavior =
  /** Real OAuth processing. */
  | "normal"
  /** 502 with an HTML error page, as when a proxy or load balancer answers instead of Google. */
  | "html"
  /** Never answers; the request hangs until the client gives up or the fake stops. */
  | "timeout"
  /** Real processing, but the success body has no `expires_in`. */
  | "no-expires-in"
  /** A canned answer: `body` is sent as JSON unless it is a string. */
  | { status: number; body?: unknown; headers?: Record<string, string> };

export interface TokenRequestCounts {
  authorization_code: number;
  refresh_token: number;
  /** Any other or missing grant_type. */
  other: number;
  total: number;
}

export interface TokenRequestLogEntry {
  grantType: string;
  /** Injected-clock time the request arrived. */
  at: number;
  /** Status answered; undefined while the request is still in flight (or never answered). */
  status?: number;
}

/** Counters and the failure switch for POST /token. */
export class TokenEndpointControl {
  readonly counts: TokenRequestCounts = { authorization_code: 0, refresh_token: 0, other: 0, total: 0 };
  readonly log: TokenRequestLogEntry[] = [];
  readonly concurrency = { inFlight: 0, peak: 0 };
  delayMs: number;
  private behavior: TokenEndpointBehavior = "normal";
  private remaining = Number.POSITIVE_INFINITY;

  constructor(delayMs: number) {
    this.delayMs = delayMs;
  }

  /** Applies `behavior` to the next `times` requests (all of them by default), then reverts to normal. */
  set(behavior: TokenEndpointBehavior, times = Number.POSITIVE_INFINITY): void {
    this.behavior = behavior;
    this.remaining = times;
  }

  /** The behaviour for the request arriving now, using up one of its `times`. */
  take(): TokenEndpointBehavior {
    const behavior = this.behavior;
    if (behavior === "normal") return behavior;
    this.remaining -= 1;
    if (this.remaining <= 0) this.behavior = "normal";
    return behavior;
  }

  record(grantType: string, at: number): TokenRequestLogEntry {
    const bucket = grantType === "authorization_code" || grantType === "refresh_token" ? grantType : "other";
    this.counts[bucket] += 1;
    this.counts.total += 1;
    const entry: TokenRequestLogEntry = { grantType, at };
    this.log.push(entry);
    return entry;
  }
}
