import type { Clock, Logger, TimerHandle } from "@junction/platform";
import type { ConsumeOptions, Job, Subscription } from "./bus.ts";
import { DEFAULT_ACK_WAIT_MS } from "./defaults.ts";
import type { GroupCommit, Transactor } from "./group-commit.ts";
import type { JobStore, StoredJob } from "./job-store.ts";

export interface DispatcherContext {
  store: JobStore;
  clock: Clock;
  logger: Logger;
  /** Batches acks and terms (and the bus's enqueues) into one transaction per event-loop turn. */
  writes: GroupCommit;
  /** Makes the claims of one pump one transaction; undefined for the in-memory store. */
  transactor: Transactor | undefined;
  /** Claims up to `limit` jobs in one write, when the store can (SQLite); else one `claim` each. */
  claimMany?: (queue: string, now: number, leaseMs: number, limit: number) => StoredJob[];
  /** Headers of the jobs enqueued with some, by job id: in memory only (a trace's context is not worth a write). */
  headers: Map<number, Record<string, string>>;
}

/**
 * Hands one queue's jobs to its consumers in this process: each job to one consumer at a time, in
 * turn among those with a free slot, and wakes itself when the next delayed or leased job falls due.
 * Jobs waiting in the store are claimed (`pump`); a job enqueued while a consumer has a free slot and
 * none waits is stored already claimed and handed over without a claim (`reserve`, `handOff`).
 */
export class QueueDispatcher {
  private consumers: LocalConsumer[] = [];
  private turn = 0;
  private wake: { at: number; timer: TimerHandle } | undefined;
  private pumping = false;
  private pumpAgain = false;
  private pumpQueued = false;
  /**
   * Whether the store may hold jobs available now that no pump has taken yet. Cleared by a pump that
   * found fewer than it had room for; set by every job stored unclaimed or released and by every
   * wake (delayed and leased jobs fall due then). While it is clear, a pump has nothing to claim and
   * makes no query, and a new job may skip the queue's claim and go straight to a consumer
   * (`reserve`), without overtaking any job that was waiting.
   */
  private backlog = true;

  constructor(
    readonly queue: string,
    private readonly ctx: DispatcherContext,
  ) {}

  add(handler: (job: Job) => Promise<void>, options: ConsumeOptions): LocalConsumer {
    const consumer = new LocalConsumer(this, this.ctx, handler, options);
    this.consumers.push(consumer);
    // A first look at the store: jobs left from before, or leased by a consumer that went away (its wake went with it).
    this.jobAvailable(true);
    return consumer;
  }

  remove(consumer: LocalConsumer): void {
    this.consumers = this.consumers.filter((c) => c !== consumer);
    if (this.consumers.length === 0) this.cancelWake();
  }

  /** Gives available jobs to consumers with room, then arranges to be called when the next one falls due. */
  pump(): void {
    // A settle inside a delivery may ask again; one loop at a time, repeated if asked meanwhile.
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    // Nothing available: the finishing handlers of a busy queue ask here for every job they settle.
    // No consumer: nobody to give a job to (and after the bus closed, a store that may be closed too).
    if (!this.backlog || this.consumers.length === 0) return;
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        // Every claim of this round in one transaction: one commit however many jobs it hands out.
        if (this.ctx.transactor) this.ctx.transactor.atomically(() => this.pumpOnce());
        else this.pumpOnce();
      } while (this.pumpAgain);
    } finally {
      this.pumping = false;
    }
  }

  /**
   * Pumps once the current synchronous work is done: a batch of enqueues or acks committing together
   * asks many times, and one pump (one transaction of claims) answers them all.
   */
  pumpSoon(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    queueMicrotask(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  /**
   * A free slot for a job about to be enqueued, when no job waits before it: the job is then stored
   * already claimed (JobStore.insert with the consumer's ack wait) and given to `handOff`, with no
   * claim of its own — one write less per job on the embedded default's hot path. Undefined when the
   * job must queue: the enqueue then calls `jobAvailable`. A reserved slot is either handed a job or
   * released with `unreserve`.
   */
  reserve(): LocalConsumer | undefined {
    if (this.backlog || this.pumping) return undefined;
    const consumer = this.nextWithRoom();
    consumer?.reserve();
    return consumer;
  }

  /**
   * Delivers a job stored claimed for `consumer`'s reserved slot, with what its bytes encode when the
   * enqueue gave it; a wake covers its lease running out unsettled.
   */
  handOff(consumer: LocalConsumer, job: StoredJob, now: number, decoded?: unknown): void {
    if (consumer.deliverReserved(job, decoded)) this.wakeBy(now + consumer.ackWaitMs, now);
  }

  /** A job was stored unclaimed or released: a pump takes it once the current work is done, or `immediately`. */
  jobAvailable(immediately = false): void {
    this.backlog = true;
    if (immediately) this.pump();
    else this.pumpSoon();
  }

  cancelWake(): void {
    this.wake?.timer.cancel();
    this.wake = undefined;
  }

  private pumpOnce(): void {
    for (;;) {
      // With every consumer busy, no wake is needed: a finishing handler pumps again.
      const consumer = this.nextWithRoom();
      if (!consumer) return;
      const now = this.ctx.clock.now();
      const room = consumer.room();
      const jobs = this.claim(now, consumer.ackWaitMs, room);
      if (jobs.length < room) this.backlog = false;
      for (const job of jobs) {
        if (consumer.maxDeliver !== undefined && job.deliveries > consumer.maxDeliver) {
          // Its last delivery expired unacked: dropped, as JetStream stops after max_deliver.
          this.ctx.store.remove(job.id);
          this.ctx.headers.delete(job.id);
          continue;
        }
        consumer.deliver(job);
      }
      if (jobs.length < room) {
        this.scheduleWake(now);
        return;
      }
    }
  }

  private claim(now: number, leaseMs: number, limit: number): StoredJob[] {
    if (this.ctx.claimMany) return this.ctx.claimMany(this.queue, now, leaseMs, limit);
    const jobs: StoredJob[] = [];
    for (let job = this.ctx.store.claim(this.queue, now, leaseMs); job; ) {
      jobs.push(job);
      if (jobs.length >= limit) break;
      job = this.ctx.store.claim(this.queue, now, leaseMs);
    }
    return jobs;
  }

  private nextWithRoom(): LocalConsumer | undefined {
    const n = this.consumers.length;
    for (let i = 0; i < n; i++) {
      const index = (this.turn + i) % n;
      const consumer = this.consumers[index];
      if (consumer?.hasRoom()) {
        this.turn = index + 1;
        return consumer;
      }
    }
    return undefined;
  }

  private scheduleWake(now: number): void {
    const at = this.ctx.store.nextAvailableAt(this.queue);
    if (at === undefined) {
      this.cancelWake();
      return;
    }
    this.wakeBy(at, now);
  }

  /** Makes sure a pump runs by `at` (the wake then recomputes the next one from the store). */
  private wakeBy(at: number, now: number): void {
    if (this.wake && this.wake.at <= at) return;
    this.cancelWake();
    const timer = this.ctx.clock.setTimer(
      () => {
        this.wake = undefined;
        // Delayed or leased jobs may have fallen due: none skips the queue until a pump has looked.
        this.backlog = true;
        this.pump();
      },
      Math.max(1, at - now),
    );
    this.wake = { at, timer };
  }
}

/** One `consume` call: runs up to `concurrency` handlers at once. */
export class LocalConsumer implements Subscription {
  readonly ackWaitMs: number;
  readonly maxDeliver: number | undefined;
  private readonly concurrency: number;
  private inFlight = 0;
  private active = true;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly dispatcher: QueueDispatcher,
    private readonly ctx: DispatcherContext,
    private readonly handler: (job: Job) => Promise<void>,
    options: ConsumeOptions,
  ) {
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.ackWaitMs = options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    this.maxDeliver = options.maxDeliver !== undefined && options.maxDeliver > 0 ? options.maxDeliver : undefined;
  }

  hasRoom(): boolean {
    return this.room() > 0;
  }

  /** How many more jobs it takes now. */
  room(): number {
    return this.active ? this.concurrency - this.inFlight : 0;
  }

  /** Holds a slot for a job the dispatcher will hand over (`deliverReserved`). */
  reserve(): void {
    this.inFlight++;
  }

  /** Frees a reserved slot that got no job (a duplicate, or the write failed). */
  unreserve(): void {
    this.inFlight--;
    this.dispatcher.pumpSoon();
  }

  deliver(stored: StoredJob): void {
    this.inFlight++;
    this.run(stored);
  }

  /**
   * Runs the job stored claimed for a reserved slot (true); a stopped consumer makes it available again
   * instead (false).
   */
  deliverReserved(stored: StoredJob, decoded?: unknown): boolean {
    if (this.active) {
      this.run(stored, decoded);
      return true;
    }
    this.inFlight--;
    try {
      this.ctx.store.release(stored.id, stored.deliveries, this.ctx.clock.now());
    } catch (err) {
      // Left leased: it is delivered again once its ack wait has passed.
      this.ctx.logger.warn("bus could not release a job handed to a stopped consumer", {
        queue: stored.queue,
        error: err,
      });
    }
    this.dispatcher.jobAvailable();
    return false;
  }

  private run(stored: StoredJob, decoded?: unknown): void {
    const job = new LocalJob(stored, this.ctx, this.dispatcher, this.maxDeliver, decoded);
    const run: Promise<void> = (async () => {
      // Start the handler outside the dispatcher's loop.
      await Promise.resolve();
      try {
        await this.handler(job);
      } catch (err) {
        this.ctx.logger.warn("bus job handler failed; job will be delivered again", {
          queue: stored.queue,
          deliveryCount: stored.deliveries,
          error: err,
        });
        await job
          .nak()
          .catch((nakError: unknown) =>
            this.ctx.logger.error("bus could not nak a failed job", { queue: stored.queue, error: nakError }),
          );
      }
    })().finally(() => {
      this.inFlight--;
      this.running.delete(run);
      this.dispatcher.pumpSoon();
    });
    this.running.add(run);
  }

  /** Takes no more jobs and waits for the handlers in flight. */
  async stop(): Promise<void> {
    if (this.active) {
      this.active = false;
      this.dispatcher.remove(this);
    }
    await Promise.all(this.running);
  }
}

/**
 * A delivered job. A handler that returns without settling leaves it leased: it is delivered again
 * once the ack wait passes, as with JetStream.
 */
class LocalJob implements Job {
  readonly queue: string;
  readonly data: Uint8Array;
  readonly msgId: string | undefined;
  readonly deliveryCount: number;
  private settled = false;

  constructor(
    private readonly stored: StoredJob,
    private readonly ctx: DispatcherContext,
    private readonly dispatcher: QueueDispatcher,
    private readonly maxDeliver: number | undefined,
    readonly decoded?: unknown,
  ) {
    this.queue = stored.queue;
    this.data = stored.data;
    this.msgId = stored.msgId;
    this.deliveryCount = stored.deliveries;
  }

  get headers(): Record<string, string> {
    return this.ctx.headers.get(this.stored.id) ?? {};
  }

  private forget(): void {
    this.ctx.store.remove(this.stored.id);
    this.ctx.headers.delete(this.stored.id);
  }

  async ack(): Promise<void> {
    // Even a late ack (after the lease ran out and the job went to another consumer) means done.
    // Until the batch commits the job stays leased, so no pump can hand it out again meanwhile.
    if (this.settle()) await this.ctx.writes.add(() => this.forget());
  }

  async nak(delayMs = 0): Promise<void> {
    if (!this.settle()) return;
    if (this.maxDeliver !== undefined && this.stored.deliveries >= this.maxDeliver) {
      this.forget();
      return;
    }
    this.ctx.store.release(this.stored.id, this.stored.deliveries, this.ctx.clock.now() + Math.max(0, delayMs));
    this.dispatcher.jobAvailable(true);
  }

  async term(): Promise<void> {
    if (this.settle()) await this.ctx.writes.add(() => this.forget());
  }

  /** The first of ack/nak/term wins; later calls do nothing, as with JetStream. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    return true;
  }
}
