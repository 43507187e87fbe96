import type { Clock, Logger, TimerHandle } from "@junction/platform";
import type { MessageRecord } from "../store/records.ts";
import { DueQueue } from "./due-queue.ts";

/** A round that threw (the store unreachable) is tried again after this. */
const ERROR_RETRY_MS = 5000;

export interface SchedulerDeps {
  clock: Clock;
  logger: Logger;
  /** Rounds in flight at once. */
  concurrency: number;
  /**
   * Runs one round of a message; resolves with when it is next due, or null when it is final.
   * `claimed` is the message as stored with a claim already taken (a new message), if any.
   */
  runRound(messageId: string, claimed?: MessageRecord): Promise<number | null>;
}

/**
 * Runs delivery rounds when they fall due, by the injected clock: messages due now start at once
 * (at most `concurrency` at a time, earliest due first); later ones wait on one clock timer set for
 * the earliest. What it holds is only a cache of the store: a message forgotten by a crash is
 * found again by the resume at start or the periodic sweep, and the store's claim keeps two
 * schedulers (or two entries) from running the same round.
 */
export class DeliveryScheduler {
  private readonly queue = new DueQueue();
  /** New messages stored with their first claim already taken: their round skips claiming. */
  private readonly claimed = new Map<string, MessageRecord>();
  /** Messages whose round is running, with the earliest time they were scheduled again meanwhile. */
  private readonly inFlight = new Map<string, number | undefined>();
  private readonly running = new Set<Promise<void>>();
  private timer: { at: number; handle: TimerHandle } | undefined;
  private pumpQueued = false;
  private started = false;
  private stopped = false;

  constructor(private readonly deps: SchedulerDeps) {}

  /** Starts running rounds (entries scheduled before are kept). */
  start(): void {
    this.started = true;
    this.pump();
  }

  /** Makes `messageId` due at `at` (earlier of the two if already scheduled). */
  schedule(messageId: string, at: number): void {
    if (this.stopped) return;
    if (this.inFlight.has(messageId)) {
      // Taken up when its round ends, so that one message never has two rounds here at once.
      const again = this.inFlight.get(messageId);
      this.inFlight.set(messageId, again === undefined ? at : Math.min(again, at));
      return;
    }
    this.queue.offer(messageId, at);
    if (at <= this.deps.clock.now()) this.pumpSoon();
    else this.arm();
  }

  /** Runs the first round of a message stored already claimed (`leaseToken` set), as soon as a slot is free. */
  scheduleClaimed(message: MessageRecord): void {
    if (this.stopped || this.has(message.id)) return;
    this.claimed.set(message.id, message);
    this.schedule(message.id, this.deps.clock.now());
  }

  /** Whether a message is waiting or running here. */
  has(messageId: string): boolean {
    return this.queue.has(messageId) || this.inFlight.has(messageId);
  }

  /** How many messages wait for a later time or a free slot. */
  get waiting(): number {
    return this.queue.size;
  }

  /**
   * Starts nothing more and waits for the rounds in flight, at most `graceMs` (wall time): a round
   * stuck on a slow endpoint is left to its claim, which runs out and lets the message be taken
   * again after a restart.
   */
  async stop(graceMs = 2000): Promise<void> {
    this.stopped = true;
    this.timer?.handle.cancel();
    this.timer = undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all(this.running), grace]);
    clearTimeout(timer);
  }

  private pumpSoon(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    // Not through the clock: "due now" must run now even on a manual clock.
    setImmediate(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  private pump(): void {
    if (!this.started || this.stopped) return;
    const now = this.deps.clock.now();
    while (this.inFlight.size < this.deps.concurrency) {
      const id = this.queue.takeDue(now);
      if (id === undefined) break;
      this.run(id);
    }
    this.arm();
  }

  private run(id: string): void {
    this.inFlight.set(id, undefined);
    const task = (async () => {
      let next: number | null;
      const claimed = this.claimed.get(id);
      this.claimed.delete(id);
      try {
        next = await this.deps.runRound(id, claimed);
      } catch (err) {
        // After stop, the store may be closed under a round left running: nothing to report.
        if (!this.stopped) {
          this.deps.logger.error("delivery round failed; it will be tried again", { messageId: id, error: err });
        }
        next = this.deps.clock.now() + ERROR_RETRY_MS;
      }
      const again = this.inFlight.get(id);
      this.inFlight.delete(id);
      if (next !== null) this.queue.offer(id, next);
      if (again !== undefined) this.queue.offer(id, again);
    })().finally(() => {
      this.running.delete(task);
      this.pump();
    });
    this.running.add(task);
  }

  /** Sets the clock timer for the earliest future entry, when it is not set for that time already. */
  private arm(): void {
    if (this.stopped || !this.started) return;
    const earliest = this.queue.earliest();
    if (earliest === undefined) {
      this.timer?.handle.cancel();
      this.timer = undefined;
      return;
    }
    const now = this.deps.clock.now();
    if (earliest <= now) {
      // Due but every slot is busy: a finishing round pumps again.
      if (this.inFlight.size < this.deps.concurrency) this.pumpSoon();
      return;
    }
    if (this.timer && this.timer.at <= earliest) return;
    this.timer?.handle.cancel();
    const handle = this.deps.clock.setTimer(() => {
      this.timer = undefined;
      this.pump();
    }, earliest - now);
    this.timer = { at: earliest, handle };
  }
}
