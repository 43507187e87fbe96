/** What the limiter says about one more onWebhook run of a script. */
export type WebhookAdmission =
  | { kind: "run" }
  /** The script is paused; `until` is when it runs again (service clock). */
  | { kind: "paused"; until: number }
  /** This run crossed the limit: the pause starts now (record and log it once). */
  | { kind: "pause-starts"; until: number; runs: number };

export interface WebhookRunLimits {
  /** onWebhook runs of one script (all its connections) per window. */
  runsPerWindow: number;
  windowMs: number;
  /** How long a script that went over the limit is paused. */
  pauseMs: number;
}

/** Scripts tracked at most; windows that have ended are dropped first. */
const MAX_TRACKED = 10_000;

/**
 * Per-script rate limit and loop detection of webhook-caused runs. A script
 * whose own API calls cause the notifications that run it ran thousands of times a minute, without
 * end; it is paused instead once it starts more than `runsPerWindow` runs in a window, on the
 * service clock. Per process: with several scripts processes, each counts what it dispatches.
 */
export class WebhookRunLimiter {
  private readonly windows = new Map<string, { start: number; runs: number }>();
  private readonly paused = new Map<string, number>();

  constructor(private readonly limits: WebhookRunLimits) {}

  /** Counts one run of `script` at `now` if it may run. */
  admit(script: string, now: number): WebhookAdmission {
    const until = this.paused.get(script);
    if (until !== undefined) {
      if (now < until) return { kind: "paused", until };
      this.paused.delete(script);
      this.windows.delete(script);
    }
    let window = this.windows.get(script);
    if (!window || now - window.start >= this.limits.windowMs) {
      if (!window && this.windows.size >= MAX_TRACKED) this.prune(now);
      window = { start: now, runs: 0 };
      this.windows.set(script, window);
    }
    if (window.runs < this.limits.runsPerWindow) {
      window.runs++;
      return { kind: "run" };
    }
    const pausedUntil = now + this.limits.pauseMs;
    this.paused.set(script, pausedUntil);
    return { kind: "pause-starts", until: pausedUntil, runs: window.runs };
  }

  private prune(now: number): void {
    for (const [key, window] of this.windows) {
      if (now - window.start >= this.limits.windowMs) this.windows.delete(key);
    }
    for (const [key, until] of this.paused) if (now >= until) this.paused.delete(key);
    // Still full: the oldest goes (a script forgotten only starts a fresh window).
    if (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value as string);
  }
}
