import {
  AckPolicy,
  type ConsumerConfig,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from "@nats-io/jetstream";
import { headers as natsHeaders, type Msg, type NatsConnection, nanos } from "@nats-io/nats-core";
import { createLogger, type Logger } from "@junction/platform";
import type { Bus, BusMessage, ConsumeOptions, EnqueueOptions, Job, SubscribeOptions, Subscription } from "./bus.ts";
import { DEFAULT_ACK_WAIT_MS, DEFAULT_DEDUP_WINDOW_MS } from "./defaults.ts";
import { JetStreamWorker, streamMsgId } from "./jetstream-worker.ts";
import { connectNats } from "./nats.ts";
import { queueSubject } from "./subjects.ts";

/** The one stream that holds every durable queue, each on its own subject. */
export const WORK_STREAM = "JUNCTION_WORK";

const DRAIN_TIMEOUT_MS = 10_000;

export interface NatsBusOptions {
  /** Comma-separated NATS URLs. */
  servers: string;
  /** The connection name the server shows. */
  name?: string;
  /** JetStream's duplicate window for `msgId` (default 2 minutes). */
  duplicateWindowMs?: number;
  /** Where failing handlers and pulls are reported. */
  logger?: Logger;
}

/**
 * The distributed bus: events on core NATS, durable queues on one JetStream work-queue stream with
 * a durable pull consumer per queue, shared by every process that consumes the queue.
 */
/** How long /ready waits for NATS to answer. */
const READY_TIMEOUT_MS = 2000;

export class NatsBus implements Bus {
  private readonly js: JetStreamClient;
  private readonly subscriptions = new Set<Subscription>();
  private readonly workers = new Set<JetStreamWorker>();
  private closed = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly logger: Logger,
  ) {
    this.js = jsm.jetstream();
    this.watchReconnects().catch((err: unknown) => logger.warn("bus stopped watching reconnects", { error: err }));
  }

  /** Connects and makes sure the work stream exists with the wanted duplicate window. */
  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const nc = await connectNats(options.servers, options.name);
    try {
      const jsm = await jetstreamManager(nc);
      await ensureWorkStream(jsm, options.duplicateWindowMs ?? DEFAULT_DEDUP_WINDOW_MS);
      return new NatsBus(nc, jsm, options.logger ?? createLogger({ base: { component: "bus" } }));
    } catch (err) {
      await nc.close();
      throw err;
    }
  }

  /** The bus's connection, for other JetStream uses (e.g. KV); `close` drains it. */
  get connection(): NatsConnection {
    return this.nc;
  }

  async publish(subject: string, data: Uint8Array, headers: Record<string, string> = {}): Promise<void> {
    this.assertOpen();
    this.nc.publish(subject, data, { headers: toNatsHeaders(headers) });
  }

  async subscribe(
    subject: string,
    handler: (msg: BusMessage) => void | Promise<void>,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    this.assertOpen();
    const sub = this.nc.subscribe(subject, options.queueGroup ? { queue: options.queueGroup } : {});
    let active = true;
    const done = (async () => {
      for await (const msg of sub) {
        if (!active) break;
        try {
          await handler(toBusMessage(msg));
        } catch (err) {
          this.logger.error("bus subscriber failed", { subject: msg.subject, pattern: subject, error: err });
        }
      }
    })();
    const subscription: Subscription = {
      stop: async () => {
        if (active) {
          active = false;
          this.subscriptions.delete(subscription);
          if (!sub.isClosed()) sub.unsubscribe();
        }
        await done;
      },
    };
    this.subscriptions.add(subscription);
    // The server knows of the subscription once this returns, so a publish right after reaches it.
    await this.nc.flush();
    return subscription;
  }

  async enqueue(queue: string, data: Uint8Array, options: EnqueueOptions = {}): Promise<{ duplicate: boolean }> {
    this.assertOpen();
    const ack = await this.js.publish(
      queueSubject(queue),
      data,
      options.msgId === undefined && options.headers === undefined
        ? undefined
        : {
            ...(options.msgId === undefined ? {} : { msgID: streamMsgId(queue, options.msgId) }),
            ...(options.headers === undefined ? {} : { headers: toNatsHeaders(options.headers) }),
          },
    );
    return { duplicate: ack.duplicate };
  }

  /**
   * Binds (creating or updating) the queue's durable consumer. Its ack wait and max deliver live on the
   * server, shared by every process that consumes the queue: the last one to start sets them.
   */
  async consume(
    queue: string,
    handler: (job: Job) => Promise<void>,
    options: ConsumeOptions = {},
  ): Promise<Subscription> {
    this.assertOpen();
    const maxDeliver = options.maxDeliver !== undefined && options.maxDeliver > 0 ? options.maxDeliver : undefined;
    const name = durableName(queue);
    await ensureQueueConsumer(this.jsm, name, queue, options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS, maxDeliver);
    const consumer = await this.js.consumers.get(WORK_STREAM, name);
    const worker = new JetStreamWorker(consumer, handler, {
      queue,
      concurrency: Math.max(1, options.concurrency ?? 1),
      maxDeliver,
      logger: this.logger,
    });
    this.workers.add(worker);
    worker.start();
    return {
      stop: async () => {
        this.workers.delete(worker);
        await worker.stop();
      },
    };
  }

  /** Stops every subscription and consumer once their handlers finish, then drains the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await Promise.all([...this.workers].map((w) => w.stop()));
    this.workers.clear();
    if (this.nc.isClosed()) return;
    // A drain cannot finish while the server is unreachable; shutting down must not wait for it.
    const gaveUp = Symbol("gave up");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      this.nc.drain().catch(() => undefined),
      new Promise<symbol>((resolve) => {
        timer = setTimeout(() => resolve(gaveUp), DRAIN_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (outcome === gaveUp && !this.nc.isClosed()) await this.nc.close();
  }

  async ready(): Promise<void> {
    this.assertOpen();
    if (this.nc.isClosed()) throw new Error("the NATS connection is closed");
    // A flush is a round trip; while NATS is down it waits for a reconnection, so it is bounded.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("NATS did not answer within 2 s")), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.nc.flush(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("bus is closed");
  }

  // A server that restarted forgot the pull requests waiting on it: ask again at once.
  private async watchReconnects(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === "reconnect") for (const worker of this.workers) worker.refresh();
    }
  }
}

export async function ensureWorkStream(jsm: JetStreamManager, duplicateWindowMs: number): Promise<void> {
  const config = {
    name: WORK_STREAM,
    subjects: [queueSubject(">")],
    // Work-queue retention: a job leaves the stream once acked (or terminated).
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: nanos(duplicateWindowMs),
  };
  try {
    await jsm.streams.add(config);
  } catch (err) {
    // It exists with another configuration (e.g. another duplicate window): bring it to ours. Processes
    // starting together race to create it, and the server may answer the loser "subjects overlap with an
    // existing stream" (10065) instead: the stream is there all the same.
    if (!isApiError(err, 10058) && !(isApiError(err, 10065) && (await streamExists(jsm)))) throw err;
    await jsm.streams.update(WORK_STREAM, { duplicate_window: config.duplicate_window });
  }
}

async function streamExists(jsm: JetStreamManager): Promise<boolean> {
  return jsm.streams.info(WORK_STREAM).then(
    () => true,
    () => false,
  );
}

async function ensureQueueConsumer(
  jsm: JetStreamManager,
  name: string,
  queue: string,
  ackWaitMs: number,
  maxDeliver: number | undefined,
): Promise<void> {
  const editable = {
    ack_wait: nanos(ackWaitMs),
    max_deliver: maxDeliver ?? -1,
    // Unlimited on the server: jobs nakked with a long delay stay pending, and the default cap (1000)
    // would stall the queue behind them. The client bounds work in flight with `concurrency`.
    max_ack_pending: -1,
  } satisfies Partial<ConsumerConfig>;
  const config: Partial<ConsumerConfig> = {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: queueSubject(queue),
    ...editable,
  };
  try {
    // nats-server 2.9 treats this as create-or-update.
    await jsm.consumers.add(WORK_STREAM, config);
  } catch (err) {
    // Later servers refuse to "create" over a changed configuration; update the editable fields.
    if (!isApiError(err)) throw err;
    await jsm.consumers.update(WORK_STREAM, name, editable);
  }
}

function isApiError(err: unknown, code?: number): boolean {
  if (typeof err !== "object" || err === null || !("code" in err)) return false;
  return code === undefined || (err as { code: unknown }).code === code;
}

/** A durable name for a queue: names may not hold `.`, `*`, `>` or spaces, so those are escaped. */
export function durableName(queue: string): string {
  return queue.replace(/[^A-Za-z0-9-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`);
}

function toNatsHeaders(values: Record<string, string>) {
  const entries = Object.entries(values);
  if (entries.length === 0) return undefined;
  const h = natsHeaders();
  for (const [key, value] of entries) h.set(key, value);
  return h;
}

function toBusMessage(msg: Msg): BusMessage {
  const headers: Record<string, string> = {};
  if (msg.headers) for (const key of msg.headers.keys()) headers[key] = msg.headers.get(key);
  return { subject: msg.subject, data: msg.data, headers };
}
