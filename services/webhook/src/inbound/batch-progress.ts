import type { NotificationReceived } from "@junction/contracts/events/v1/events_pb";
import { ExpiringCache } from "@junction/platform";

/** A batch's items processed at once. */
const ITEMS_AT_ONCE = 16;
/** Batch jobs whose progress is remembered at most (each a set of at most a batch's item ids). */
const MAX_REMEMBERED = 1000;
/** How long a failed batch job's progress is remembered: well past its retries' backoff (a minute at most). */
const REMEMBERED_MS = 10 * 60_000;

/**
 * The items of a batch job (one job, several notifications) this process processed already, so that
 * the job taken again — after one of its items failed, or redelivered before its ack landed — processes
 * only the others: a lifecycle item's call to the channel service is not made twice because of a
 * sibling. Processing an item twice stays harmless (message ids derive from the notification; sinks
 * are idempotent), as when another process, or this one after a restart, takes the job again without
 * this memory.
 */
export class BatchProgress {
  private readonly done: ExpiringCache<string, Set<string>>;

  constructor(private readonly now: () => number) {
    this.done = new ExpiringCache({ maxEntries: MAX_REMEMBERED, now });
  }

  /**
   * Runs `work` on each notification not done yet, at most ITEMS_AT_ONCE at once, then `ack`s the job;
   * throws the first failure (the job not acked). The progress is forgotten once the job is acked.
   */
  async run(
    notifications: NotificationReceived[],
    work: (n: NotificationReceived) => Promise<void>,
    ack: () => Promise<void>,
  ): Promise<void> {
    if (notifications.length === 1) {
      await work(notifications[0] as NotificationReceived);
      return ack();
    }
    const key = notifications[0]?.id ?? "";
    const done = this.done.get(key) ?? new Set<string>();
    this.done.set(key, done, this.now() + REMEMBERED_MS);
    let failure: { err: unknown } | undefined;
    for (let start = 0; start < notifications.length; start += ITEMS_AT_ONCE) {
      const group = notifications.slice(start, start + ITEMS_AT_ONCE).filter((n) => !done.has(n.id));
      await Promise.all(
        group.map(async (n) => {
          try {
            await work(n);
            done.add(n.id);
          } catch (err) {
            failure ??= { err };
          }
        }),
      );
    }
    if (failure !== undefined) throw failure.err;
    await ack();
    this.done.delete(key);
  }
}
