import type { Database } from "bun:sqlite";
import { type Clock, createLogger, type Logger, systemClock } from "@junction/platform";
import type { Bus, BusMessage, ConsumeOptions, EnqueueOptions, Job, SubscribeOptions, Subscription } from "./bus.ts";
import { DEFAULT_DEDUP_WINDOW_MS } from "./defaults.ts";
import { GroupCommit } from "./group-commit.ts";
import type { InsertResult, JobStore } from "./job-store.ts";
import { MemoryJobStore } from "./memory-job-store.ts";
import { type DispatcherContext, QueueDispatcher } from "./queue-dispatcher.ts";
import { SqliteJobStore } from "./sqlite-job-store.ts";
import { subjectMatches } from "./subject-match.ts";

/** What a companion write that answered false leaves: no job. */
const NOT_STORED: InsertResult = { duplicate: true };

export interface MemoryBusOptions {
  /** How long a `msgId` is remembered per queue for de-duplication (default 2 minutes). */
  dedupWindowMs?: number;
  clock?: Clock;
  /** Where failing handlers are reported. */
  logger?: Logger;
}

/**
 * The in-process bus of the embedded default: pub/sub among the subscribers of this process, and
 * durable queues kept in SQLite when a database is given (in memory otherwise). It is meant for one
 * process: events do not cross processes.
 */
export class MemoryBus implements Bus {
  private readonly subscriptions = new Set<LocalSubscription>();
  private readonly groupTurns = new Map<string, number>();
  private readonly dispatchers = new Map<string, QueueDispatcher>();
  private readonly consumers = new Set<Subscription>();
  private readonly ctx: DispatcherContext;
  private closed = false;
  private readonly db: Database | undefined;

  /** A companion write and its job in one savepoint (made once: a transaction function costs to make). */
  private readonly together: ((write: () => boolean, insert: () => InsertResult) => InsertResult) | undefined;

  constructor(db?: Database, options: MemoryBusOptions = {}) {
    this.db = db;
    this.together = db?.transaction((write: () => boolean, insert: () => InsertResult) =>
      write() ? insert() : NOT_STORED,
    );
    const window = options.dedupWindowMs ?? DEFAULT_DEDUP_WINDOW_MS;
    const sqlite = db ? new SqliteJobStore(db, window) : undefined;
    const store: JobStore = sqlite ?? new MemoryJobStore(window);
    this.ctx = {
      store,
      clock: options.clock ?? systemClock,
      logger: options.logger ?? createLogger({ base: { component: "bus" } }),
      writes: db ? GroupCommit.forDatabase(db) : new GroupCommit(undefined),
      transactor: sqlite?.transactor,
      claimMany: sqlite ? (queue, now, leaseMs, limit) => sqlite.claimMany(queue, now, leaseMs, limit) : undefined,
      headers: new Map(),
    };
  }

  async publish(subject: string, data: Uint8Array, headers: Record<string, string> = {}): Promise<void> {
    this.assertOpen();
    // Copied now, as NATS would serialize it: the caller may reuse its buffer once this resolves.
    const msg: BusMessage = { subject, data: data.slice(), headers: { ...headers } };
    const groups = new Map<string, LocalSubscription[]>();
    for (const sub of this.subscriptions) {
      if (!subjectMatches(sub.pattern, subject)) continue;
      if (sub.queueGroup === undefined) {
        sub.deliver(msg);
        continue;
      }
      const members = groups.get(sub.queueGroup) ?? [];
      members.push(sub);
      groups.set(sub.queueGroup, members);
    }
    // As in NATS, a queue group is named across subjects: each group gets the message once.
    for (const [group, members] of groups) {
      const turn = this.groupTurns.get(group) ?? 0;
      this.groupTurns.set(group, turn + 1);
      members[turn % members.length]?.deliver(msg);
    }
  }

  async subscribe(
    subject: string,
    handler: (msg: BusMessage) => void | Promise<void>,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    this.assertOpen();
    const sub = new LocalSubscription(subject, options.queueGroup, handler, this.ctx.logger, (s) =>
      this.subscriptions.delete(s),
    );
    this.subscriptions.add(sub);
    return sub;
  }

  acceptsCompanion(database: unknown): boolean {
    return database !== undefined && database === this.db;
  }

  async enqueue(queue: string, data: Uint8Array, options: EnqueueOptions = {}): Promise<{ duplicate: boolean }> {
    this.assertOpen();
    const companion = options.companion;
    if (companion && !this.acceptsCompanion(companion.database)) {
      throw new Error("a companion write must be on the bus's own database");
    }
    const copy = data.slice();
    const now = this.ctx.clock.now();
    const dispatcher = this.dispatchers.get(queue);
    // A consumer with a free slot and nothing waiting before this job: stored claimed, handed over directly.
    const taker = dispatcher?.reserve();
    let result: InsertResult;
    try {
      // Group commit: resolves once the job is committed, together with the others of this turn.
      const insert = () => this.ctx.store.insert(queue, copy, options.msgId, now, taker?.ackWaitMs);
      // The companion and the job in one savepoint: either both stand or neither does.
      const together = this.together;
      result = await this.ctx.writes.add(() => (companion && together ? together(companion.write, insert) : insert()));
    } catch (err) {
      taker?.unreserve();
      throw err;
    }
    if (result === NOT_STORED) {
      taker?.unreserve();
      return { duplicate: true };
    }
    if (options.headers !== undefined && result.id !== undefined) this.ctx.headers.set(result.id, options.headers);
    if (taker && result.claimed) dispatcher?.handOff(taker, result.claimed, now, options.decoded);
    else if (taker) taker.unreserve();
    else if (!result.duplicate) dispatcher?.jobAvailable();
    return { duplicate: result.duplicate };
  }

  async consume(
    queue: string,
    handler: (job: Job) => Promise<void>,
    options: ConsumeOptions = {},
  ): Promise<Subscription> {
    this.assertOpen();
    let dispatcher = this.dispatchers.get(queue);
    if (!dispatcher) {
      dispatcher = new QueueDispatcher(queue, this.ctx);
      this.dispatchers.set(queue, dispatcher);
    }
    const consumer = dispatcher.add(handler, options);
    const subscription: Subscription = {
      stop: async () => {
        this.consumers.delete(subscription);
        await consumer.stop();
      },
    };
    this.consumers.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await Promise.all([...this.consumers].map((c) => c.stop()));
    for (const dispatcher of this.dispatchers.values()) dispatcher.cancelWake();
    // What the stopped handlers settled last is written now, not on a turn the caller may not wait for.
    this.ctx.writes.flush();
  }

  async ready(): Promise<void> {
    this.assertOpen();
    // Its durable queues live in the SQLite file: the bus answers when the file does.
    this.db?.query("SELECT 1").get();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("bus is closed");
  }
}

/** One subscriber: gets its messages one at a time, in publish order, as a NATS subscription does. */
class LocalSubscription implements Subscription {
  private chain: Promise<void> = Promise.resolve();
  private active = true;

  constructor(
    readonly pattern: string,
    readonly queueGroup: string | undefined,
    private readonly handler: (msg: BusMessage) => void | Promise<void>,
    private readonly logger: Logger,
    private readonly onStop: (sub: LocalSubscription) => void,
  ) {}

  deliver(msg: BusMessage): void {
    this.chain = this.chain.then(async () => {
      if (!this.active) return;
      try {
        await this.handler(msg);
      } catch (err) {
        // Events are at most once: a failing subscriber loses this one, the others still get it.
        this.logger.error("bus subscriber failed", { subject: msg.subject, pattern: this.pattern, error: err });
      }
    });
  }

  /** Delivers nothing more, and waits for the handler in progress. */
  async stop(): Promise<void> {
    if (this.active) {
      this.active = false;
      this.onStop(this);
    }
    await this.chain;
  }
}
