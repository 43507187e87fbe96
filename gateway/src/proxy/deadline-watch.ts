/** How often overdue attempts are looked for: timeouts fire up to this late. */
const SWEEP_MS = 100;
/** The timer stops after this many sweeps found nothing to watch (and starts again with the next attempt). */
const IDLE_SWEEPS = 20;

/**
 * Aborts attempts that outlive their deadline. One timer sweeps every pending attempt, instead of a
 * timer set and cleared per request: on the proxy's hot path that difference is measurable, and a
 * timeout of seconds does not need millisecond precision.
 */
export class DeadlineWatch {
  private readonly pending = new Set<{ controller: AbortController; deadline: number; fired: boolean }>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private idleSweeps = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Aborts `controller` once `ms` have passed, unless `done` is called first. `timedOut()` tells which. */
  watch(controller: AbortController, ms: number): { done(): void; timedOut(): boolean } {
    const entry = { controller, deadline: this.now() + ms, fired: false };
    this.pending.add(entry);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), Math.min(SWEEP_MS, Math.max(1, ms)));
      (this.timer as { unref?: () => void }).unref?.();
    }
    return {
      done: () => {
        this.pending.delete(entry);
      },
      timedOut: () => entry.fired,
    };
  }

  /** Aborts every attempt past its deadline (the timer calls it; tests may too). */
  sweep(): void {
    const now = this.now();
    for (const entry of this.pending) {
      if (entry.deadline > now) continue;
      entry.fired = true;
      this.pending.delete(entry);
      entry.controller.abort();
    }
    this.idleSweeps = this.pending.size === 0 ? this.idleSweeps + 1 : 0;
    if (this.idleSweeps >= IDLE_SWEEPS && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.idleSweeps = 0;
    }
  }
}
