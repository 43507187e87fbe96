import type { Consumer, ConsumerMessages, JsMsg } from "@nats-io/jetstream";
import { exponentialDelay, type Logger } from "@junction/platform";
import type { Job } from "./bus.ts";

// How long one pull request waits on the server for jobs; the client needs at least 1 s.
const FETCH_EXPIRES_MS = 5_000;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

export interface JetStreamWorkerOptions {
  queue: string;
  concurrency: number;
  maxDeliver: number | undefined;
  logger: Logger;
}

/**
 * Pulls one durable consumer's jobs and runs them, never holding more than `concurrency` at once:
 * each pull asks for at most the free slots, so no job waits in a client buffer while its ack
 * wait runs out.
 */
export class JetStreamWorker {
  private inFlight = 0;
  private stopped = false;
  private current: ConsumerMessages | undefined;
  private readonly running = new Set<Promise<void>>();
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly consumer: Consumer,
    private readonly handler: (job: Job) => Promise<void>,
    private readonly options: JetStreamWorkerOptions,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** Abandons the pull in progress and asks again, e.g. after a reconnect the server forgot it. */
  refresh(): void {
    this.current?.stop();
  }

  /** Takes no more jobs and waits for the handlers in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.stop();
    this.notify();
    await this.loop;
    await Promise.all(this.running);
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      const room = this.options.concurrency - this.inFlight;
      if (room <= 0) {
        await this.changed();
        continue;
      }
      try {
        const batch = await this.consumer.fetch({ max_messages: room, expires: FETCH_EXPIRES_MS });
        this.current = batch;
        if (this.stopped) batch.stop();
        for await (const msg of batch) {
          // Pulled after stop began: give it back at once rather than let its ack wait run out.
          if (this.stopped) msg.nak();
          else this.dispatch(msg);
        }
        failures = 0;
      } catch (err) {
        if (this.stopped) break;
        failures++;
        const delay = exponentialDelay(failures, RETRY_MIN_MS, RETRY_MAX_MS);
        this.options.logger.warn("bus pull failed; retrying", {
          queue: this.options.queue,
          error: err,
          delayMs: delay,
        });
        await this.changed(delay);
      } finally {
        this.current = undefined;
      }
    }
  }

  private dispatch(msg: JsMsg): void {
    this.inFlight++;
    const job = new JetStreamJob(msg, this.options.queue, this.options.maxDeliver);
    const run: Promise<void> = (async () => {
      try {
        await this.handler(job);
      } catch (err) {
        this.options.logger.warn("bus job handler failed; job will be delivered again", {
          queue: this.options.queue,
          deliveryCount: job.deliveryCount,
          error: err,
        });
        // The ack wait brings the job back even if this nak is lost with the connection.
        await job
          .nak()
          .catch((nakError: unknown) =>
            this.options.logger.warn("bus could not nak a failed job", { queue: this.options.queue, error: nakError }),
          );
      }
    })().finally(() => {
      this.inFlight--;
      this.running.delete(run);
      this.notify();
    });
    this.running.add(run);
  }

  /** Resolves when a slot frees up or the worker stops (or after `timeoutMs`, to retry a failed pull). */
  private changed(timeoutMs?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => this.notify(), timeoutMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
      if (this.stopped) this.notify();
    });
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** Prefixes a msgId with its queue: JetStream de-duplicates across the whole stream, the bus per queue. */
export function streamMsgId(queue: string, msgId: string): string {
  return `${queue}:${msgId}`;
}

class JetStreamJob implements Job {
  readonly queue: string;
  readonly data: Uint8Array;
  readonly msgId: string | undefined;
  readonly deliveryCount: number;
  private settled = false;

  constructor(
    private readonly msg: JsMsg,
    queue: string,
    private readonly maxDeliver: number | undefined,
  ) {
    this.queue = queue;
    this.data = msg.data;
    const id = msg.headers?.get("Nats-Msg-Id");
    const prefix = streamMsgId(queue, "");
    this.msgId = id ? (id.startsWith(prefix) ? id.slice(prefix.length) : id) : undefined;
    this.deliveryCount = msg.info.deliveryCount;
  }

  get headers(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.msg.headers) for (const key of this.msg.headers.keys()) headers[key] = this.msg.headers.get(key);
    return headers;
  }

  async ack(): Promise<void> {
    // Waits for the server's confirmation: once this resolves the job is gone for good.
    if (this.settle()) await this.msg.ackAck();
  }

  async nak(delayMs = 0): Promise<void> {
    if (!this.settle()) return;
    // Out of deliveries: terminate it, so that the work-queue stream does not keep it for ever.
    if (this.maxDeliver !== undefined && this.deliveryCount >= this.maxDeliver) this.msg.term();
    else this.msg.nak(delayMs > 0 ? delayMs : undefined);
  }

  async term(): Promise<void> {
    if (this.settle()) this.msg.term();
  }

  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    return true;
  }
}
