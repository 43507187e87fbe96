/** How often overdue attempts are looked for: timeouts fire up to this late. */
const SWEEP_MS = 100;
/**
 * An attempt still waiting after this is asked whether its caller is still there. Bun makes a
 * request's abort signal only when it is first read (even after the client left, it then reads as
 * aborted), so the quick attempts — almost all of them — never make one: a signal per request is a
 * measurable share of the proxy's garbage-collection pauses.
 */
const CALLER_CHECK_AFTER_MS = 100;
/** The timer stops after this many sweeps found nothing to watch (and starts again with the next attempt). */
const IDLE_SWEEPS = 20;

/** Whether the caller of an attempt has gone away (the proxied request's `signal.aborted`). */
export interface Caller {
  readonly signal: AbortSignal;
}

/**
 * One watched attempt: `done()` once it has its answer; `timedOut()` tells whether the watch aborted
 * it for its deadline (it may also abort it because its caller left: then `timedOut()` is false).
 */
export class Watched {
  fired = false;

  constructor(
    readonly controller: AbortController,
    readonly deadline: number,
    /** When to start asking whether the caller is still there. */
    readonly checkCallerAt: number,
    readonly caller: Caller | undefined,
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
 * Aborts attempts that outlive their deadline, and those still waiting whose caller has gone away
 * (nobody is left to answer; the upstream call would otherwise run on until its timeout). One timer
 * sweeps every pending attempt, instead of a
 * timer set and cleared per request: on the proxy's hot path that difference is measurable, and a
 * timeout of seconds does not need millisecond precision. A registration is one small object.
 *
 * The pending attempts are a plain array with swap-remove, not a Set: a Set that takes and drops one
 * entry per request keeps the dropped ones referenced until it rehashes, so tens of thousands of
 * finished AbortControllers stayed reachable and every garbage collection visited them (long pauses under
 * load, the proxy's p99: docs/benchmarks.md, "Proxy → Second session"). An array that only holds what is
 * pending does not.
 */
export class DeadlineWatch {
  private readonly pending: Watched[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private idleSweeps = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /**
   * Aborts `controller` once `ms` have passed, unless `done` is called first (`timedOut()` tells
   * which), or earlier once `caller` has gone away.
   */
  watch(controller: AbortController, ms: number, caller?: Caller): Watched {
    const now = this.now();
    const entry = new Watched(controller, now + ms, now + CALLER_CHECK_AFTER_MS, caller, this, this.pending.length);
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

  /** Aborts every attempt past its deadline or left by its caller (the timer calls it; tests may too). */
  sweep(): void {
    const now = this.now();
    // Backwards: a removal moves the last entry, already looked at, into the freed place.
    for (let i = this.pending.length - 1; i >= 0; i--) {
      const entry = this.pending[i] as Watched;
      if (entry.deadline <= now) entry.fired = true;
      else if (!(entry.checkCallerAt <= now && entry.caller?.signal.aborted)) continue;
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
