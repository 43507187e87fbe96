/**
 * The bus: publish/subscribe for events, queue groups for sharing work among processes, and durable
 * work queues with ack, redelivery and de-duplication. Two implementations share one conformance
 * suite: the in-process bus (embedded default) and NATS JetStream (distributed).
 */

/** A message delivered to a subscriber. */
export interface BusMessage {
  subject: string;
  data: Uint8Array;
  headers: Record<string, string>;
}

/** A live subscription or consumer; `stop` stops delivering to it. */
export interface Subscription {
  stop(): Promise<void>;
}

/** A job taken from a durable work queue. Exactly one of ack/nak/term should be called. */
export interface Job {
  /** The queue it came from. */
  readonly queue: string;
  readonly data: Uint8Array;
  /** The de-duplication id given to `enqueue`, if any. */
  readonly msgId: string | undefined;
  /** 1 on the first delivery, 2 on the first redelivery... */
  readonly deliveryCount: number;
  /** The headers given to `enqueue` (a trace's `traceparent`); the in-process bus keeps them in memory only. */
  readonly headers: Record<string, string>;
  /**
   * `EnqueueOptions.decoded`, when this delivery came straight from that enqueue in this process;
   * undefined otherwise (a job that waited in the store, a redelivery, another process, NATS): then decode `data`.
   */
  readonly decoded?: unknown;
  /** Done: never deliver again. */
  ack(): Promise<void>;
  /** Not done: deliver again after `delayMs` (default: at once). */
  nak(delayMs?: number): Promise<void>;
  /** Give up: never deliver again, without success. */
  term(): Promise<void>;
}

export interface SubscribeOptions {
  /** Members of the same group share the messages: each goes to one member. */
  queueGroup?: string;
}

export interface EnqueueOptions {
  /** De-duplication id: a second enqueue with the same id within the window is dropped. */
  msgId?: string;
  /** Headers carried to the consumer (a trace's `traceparent`). */
  headers?: Record<string, string>;
  /** A write that commits with the job or not at all (only where `acceptsCompanion` says so). */
  companion?: JobCompanion;
  /**
   * What `data` encodes, as the caller built it: a consumer of this process that takes the job straight
   * from this enqueue gets it as `Job.decoded` and need not decode the bytes it was just given. The caller
   * hands it over (it must not change it afterwards); the bus gives it to that one delivery and keeps no reference.
   */
  decoded?: unknown;
}

/**
 * A caller's write made atomic with a job: where the bus keeps its queues in the caller's own SQLite
 * file (the embedded default), it runs in the job's transaction, before the job; the job is stored only
 * when it answers true (else `enqueue` resolves `{ duplicate: true }` and stores nothing), and a failed
 * job insert rolls the write back.
 */
export interface JobCompanion {
  /** The database the write runs on: the bus takes it only when it is its own. */
  database: unknown;
  write(): boolean;
}

export interface ConsumeOptions {
  /** Jobs in flight at once for this consumer (default 1). */
  concurrency?: number;
  /** A job neither acked nor nakked within this is delivered again (default 30 s). */
  ackWaitMs?: number;
  /** After this many deliveries a job is dropped (default: unlimited). */
  maxDeliver?: number;
}

export interface Bus {
  /** Publishes an event to every subscriber of a matching subject (at most once; not persisted). */
  publish(subject: string, data: Uint8Array, headers?: Record<string, string>): Promise<void>;
  /** Subscribes to a subject; `*` matches one token and `>` the rest, as in NATS. */
  subscribe(
    subject: string,
    handler: (msg: BusMessage) => void | Promise<void>,
    options?: SubscribeOptions,
  ): Promise<Subscription>;
  /** Whether `enqueue` can commit a companion write on `database` with its job (absent: never). */
  acceptsCompanion?(database: unknown): boolean;
  /** Persists a job on a durable queue; resolves once it is durable. */
  enqueue(queue: string, data: Uint8Array, options?: EnqueueOptions): Promise<{ duplicate: boolean }>;
  /** Takes jobs from a durable queue; several consumers of one queue (in any process) share them. */
  consume(queue: string, handler: (job: Job) => Promise<void>, options?: ConsumeOptions): Promise<Subscription>;
  /** Resolves when the bus answers (NATS: a round trip to the server), rejects saying why otherwise (/ready). */
  ready(): Promise<void>;
  /** Stops subscriptions and consumers after in-flight handlers finish, then closes. */
  close(): Promise<void>;
}
