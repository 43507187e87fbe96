import type { Tracing } from "@junction/platform";
import type { Bus, BusMessage, ConsumeOptions, EnqueueOptions, Job, SubscribeOptions, Subscription } from "./bus.ts";

/**
 * A bus that carries traces (only when tracing is on; the process wraps its bus then): the active
 * span's `traceparent` goes in each message's headers, and each handler runs in a consumer span that
 * continues it.
 */
export class TracedBus implements Bus {
  constructor(
    private readonly inner: Bus,
    private readonly tracing: Tracing,
  ) {}

  publish(subject: string, data: Uint8Array, headers: Record<string, string> = {}): Promise<void> {
    return this.inner.publish(subject, data, this.tracing.inject({ ...headers }));
  }

  subscribe(
    subject: string,
    handler: (msg: BusMessage) => void | Promise<void>,
    options?: SubscribeOptions,
  ): Promise<Subscription> {
    return this.inner.subscribe(
      subject,
      (msg) =>
        this.tracing.span(
          `receive ${msg.subject}`,
          { "messaging.destination.name": msg.subject },
          async () => handler(msg),
          {
            parent: msg.headers,
            kind: "consumer",
          },
        ),
      options,
    );
  }

  acceptsCompanion(database: unknown): boolean {
    return this.inner.acceptsCompanion?.(database) ?? false;
  }

  enqueue(queue: string, data: Uint8Array, options: EnqueueOptions = {}): Promise<{ duplicate: boolean }> {
    return this.inner.enqueue(queue, data, { ...options, headers: this.tracing.inject({ ...options.headers }) });
  }

  consume(queue: string, handler: (job: Job) => Promise<void>, options?: ConsumeOptions): Promise<Subscription> {
    return this.inner.consume(
      queue,
      (job) =>
        this.tracing.span(
          `process ${queue}`,
          { "messaging.destination.name": queue, "messaging.delivery_count": job.deliveryCount },
          () => handler(job),
          { parent: job.headers, kind: "consumer" },
        ),
      options,
    );
  }

  ready(): Promise<void> {
    return this.inner.ready();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
