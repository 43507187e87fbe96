import type { Tracing } from "@junction/platform";

/** Messages whose trace is kept at most (the oldest is forgotten past it: a trace is best effort). */
const MAX_KEPT = 10_000;

/**
 * The trace of each message stored in this process, until its rounds end: a round runs from the
 * scheduler, long after the notification's span ended, and is traced as its child. In memory only:
 * a message delivered by another process, or after a restart, starts a trace of its own.
 */
export class DeliveryTraces {
  private readonly kept = new Map<string, <T>(fn: () => Promise<T>) => Promise<T>>();

  constructor(private readonly tracing: Tracing) {}

  /** Keeps the active span for the message's rounds. */
  keep(messageId: string): void {
    if (this.kept.size >= MAX_KEPT) {
      const oldest = this.kept.keys().next().value;
      if (oldest !== undefined) this.kept.delete(oldest);
    }
    this.kept.set(messageId, this.tracing.capture());
  }

  /** Runs a round of the message in a span under its kept trace; forgets it once the message is final. */
  async round(messageId: string, run: () => Promise<number | null>): Promise<number | null> {
    const under = this.kept.get(messageId) ?? (<T>(fn: () => Promise<T>) => fn());
    const next = await under(() =>
      this.tracing.span("webhook delivery round", { "junction.message_id": messageId }, async (span) => {
        const due = await run();
        span.setAttribute("junction.final", due === null);
        return due;
      }),
    );
    if (next === null) this.kept.delete(messageId);
    return next;
  }
}
