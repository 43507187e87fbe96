/** How often overdue attempts are looked for: timeouts fire up to this late. */
const SWEEP_MS = 100;
/** The timer stops after this many sweeps found nothing to watch (and starts again with the next attempt). */
const IDLE_SWEEPS = 20;

/** One watched attempt: `done()` once it has its answer; `timedOut()` tells whether the watch aborted it. */
export class Watched {
  fired = false;

  constructor(
    readonly controller: AbortController,
    readonly deadline: number,
    private readonly watch: DeadlineWatch,
    /** Its place in the watch's list while pending; -1 once done or aborted. */
    public index: number,
  ) {}

  done(): void {
    this.watch.release(this);
  }

  timedOut(): boolean {
    return this.fired;
  }
}

/**
 * Aborts attempts that outlive their deadline. One timer sweeps every pending attempt, instead of a
 * timer set and cleared per request: on the proxy's hot path that difference is measurable, and a
 * timeout of seconds does not need millisecond precision. A registration is one small object.
 *
 * The pending attempts are a plain array with swap-remove, not a Set: a Set that takes and drops one
 * entry per request keeps the dropped ones referenced until it rehashes, so tens of thousands of
 * finished AbortControllers stayed reachable and every garbage collection visited them (5–7 ms pauses
 * under load instead of under 1 ms, the proxy's p99). An array that only holds what is pending does not.
 */
export class DeadlineWatch {
  private readonly pending: Watched[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private idleSweeps = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Aborts `controller` once `ms` have passed, unless `done` is called first. `timedOut()` tells which. */
  watch(controller: AbortController, ms: number): Watched {
    const entry = new Watched(controller, this.now() + ms, this, this.pending.length);
    this.pending.push(entry);
    if (this.timer === undefined) this.start(ms);
    return entry;
  }

  /** Stops watching `entry` (its attempt is over); the last entry takes its place. */
  release(entry: Watched): void {
    const at = entry.index;
    if (at < 0) return;
    entry.index = -1;
    const last = this.pending.pop() as Watched;
    if (last !== entry) {
      this.pending[at] = last;
      last.index = at;
    }
  }

  /** Aborts every attempt past its deadline (the timer calls it; tests may too). */
  sweep(): void {
    const now = this.now();
    // Backwards: a removal moves the last entry, already looked at, into the freed place.
    for (let i = this.pending.length - 1; i >= 0; i--) {
      const entry = this.pending[i] as Watched;
      if (entry.deadline > now) continue;
      entry.fired = true;
      this.release(entry);
      entry.controller.abort();
    }
    this.idleSweeps = this.pending.length === 0 ? this.idleSweeps + 1 : 0;
    if (this.idleSweeps >= IDLE_SWEEPS && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.idleSweeps = 0;
    }
  }

  /** Starts the sweeping timer (its closure lives here, not in `watch`, which runs per attempt). */
  private start(ms: number): void {
    this.timer = setInterval(() => this.sweep(), Math.min(SWEEP_MS, Math.max(1, ms)));
    (this.timer as { unref?: () => void }).unref?.();
  }
}
