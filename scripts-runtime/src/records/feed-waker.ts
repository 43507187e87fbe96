import type { Clock, TimerHandle } from "@junction/platform";
import type { RecordChanges } from "./record-changes.ts";
import type { RecordScope } from "./record-store.ts";

/** What wakes a waiting change feed: a write of this process, the poll interval, the heartbeat, an abort. */
export interface FeedWakerOptions {
  changes: RecordChanges;
  clock: Clock;
  heartbeatMs: number;
  pollMs: number;
}

/**
 * The timers and listeners of one change feed. Everything is released by `release`, which an abort also
 * runs: a consumer may stop pulling without ever resuming the feed's generator (its finally).
 */
export class FeedWaker {
  /** Something happened since the feed last read the store. */
  woken = false;
  /** A heartbeat is owed. */
  heartbeatDue = false;
  private wake: (() => void) | null = null;
  private heartbeat: TimerHandle | null = null;
  private poll: TimerHandle | null = null;
  private released = false;
  private readonly options: FeedWakerOptions;
  private readonly signal: AbortSignal;
  private readonly unlisten: () => void;

  constructor(options: FeedWakerOptions, scope: RecordScope, signal: AbortSignal) {
    this.options = options;
    this.signal = signal;
    this.unlisten = options.changes.listen(scope, this.poke);
    signal.addEventListener("abort", this.onAbort);
    this.armHeartbeat();
  }

  private readonly poke = () => {
    this.woken = true;
    this.wake?.();
  };

  private readonly onAbort = () => {
    this.release();
    this.poke();
  };

  private armHeartbeat(): void {
    this.heartbeat = this.options.clock.setTimer(() => {
      if (this.released) return;
      this.heartbeatDue = true;
      this.armHeartbeat();
      this.poke();
    }, this.options.heartbeatMs);
  }

  /** Waits for the next write, poll interval, heartbeat or abort. */
  async sleep(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      if (!this.released) this.poll = this.options.clock.setTimer(this.poke, this.options.pollMs);
    });
    this.wake = null;
    this.poll?.cancel();
    this.poll = null;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.unlisten();
    this.signal.removeEventListener("abort", this.onAbort);
    this.heartbeat?.cancel();
    this.poll?.cancel();
  }
}
