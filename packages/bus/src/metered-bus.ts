import type { Counter, MetricsRegistry } from "@junction/platform";
import type { Bus, BusMessage, ConsumeOptions, EnqueueOptions, Job, SubscribeOptions, Subscription } from "./bus.ts";

/**
 * A bus that counts its failures for GET /metrics (publish and enqueue refused, handlers that threw):
 * the process wraps its bus once, so every service's use is counted. Successes cost nothing more than
 * the call passed on.
 */
export class MeteredBus implements Bus {
  private readonly errors: Counter;

  constructor(
    private readonly inner: Bus,
    metrics: MetricsRegistry,
  ) {
    this.errors = metrics.counter(
      "junction_bus_errors_total",
      "Bus operations that failed, by operation (publish, enqueue, handler: a subscriber or job handler threw).",
      ["op"],
    );
  }

  publish(subject: string, data: Uint8Array, headers?: Record<string, string>): Promise<void> {
    return this.counted(this.inner.publish(subject, data, headers), "publish");
  }

  subscribe(
    subject: string,
    handler: (msg: BusMessage) => void | Promise<void>,
    options?: SubscribeOptions,
  ): Promise<Subscription> {
    return this.inner.subscribe(
      subject,
      async (msg) => {
        try {
          await handler(msg);
        } catch (err) {
          this.errors.inc("handler");
          throw err;
        }
      },
      options,
    );
  }

  acceptsCompanion(database: unknown): boolean {
    return this.inner.acceptsCompanion?.(database) ?? false;
  }

  enqueue(queue: string, data: Uint8Array, options?: EnqueueOptions): Promise<{ duplicate: boolean }> {
    return this.counted(this.inner.enqueue(queue, data, options), "enqueue");
  }

  consume(queue: string, handler: (job: Job) => Promise<void>, options?: ConsumeOptions): Promise<Subscription> {
    return this.inner.consume(
      queue,
      (job) =>
        handler(job).catch((err: unknown) => {
          this.errors.inc("handler");
          throw err;
        }),
      options,
    );
  }

  ready(): Promise<void> {
    return this.inner.ready();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private counted<T>(p: Promise<T>, op: string): Promise<T> {
    p.catch(() => this.errors.inc(op));
    return p;
  }
}
