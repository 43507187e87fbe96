import { ExpiringCache } from "@junction/platform";
import type { WebhookDeliveryStore } from "../store/store.ts";

/** Integrations whose stored count is remembered at once (there are few; this bounds the map). */
const MAX_COUNTED = 10_000;
/**
 * A count of notifications not processed that this process has not seen fall for this long is dropped:
 * another process's worker takes them (several webhook processes), or this one is stuck; the stored
 * count stays the bound either way, and the count can never lock intake for good.
 */
export const INBOUND_STALE_MS = 5 * 60_000;

/** Notifications of one integration recorded here and not yet processed, and when the count last fell (or began). */
interface InboundCount {
  n: number;
  movedAt: number;
}

/**
 * The work an integration has pending, for intake's cap: its notifications
 * recorded here and not yet processed by the inbound worker (counted in memory as they are enqueued
 * and processed), plus its messages not yet final (counted in the store, durable, so right after a
 * restart; recounted at most every `recountMs`, never per request; a notification processed counts as
 * one message until then). A notification left on the queue
 * by a crash is not in the first count after the restart: the worker takes it first, and it was
 * recorded under the cap, so the cap is exceeded by at most one cap's worth, once. With several webhook
 * processes, the one that records a notification may not be the one that processes it: see
 * INBOUND_STALE_MS.
 */
export class PendingWork {
  private readonly inbound = new Map<string, InboundCount>();
  private readonly stored: ExpiringCache<string, number>;
  private readonly counting = new Map<string, Promise<number>>();

  constructor(
    private readonly store: Pick<WebhookDeliveryStore, "countPending">,
    private readonly max: number,
    private readonly recountMs: number,
    now: () => number,
  ) {
    this.stored = new ExpiringCache({ maxEntries: MAX_COUNTED, now });
  }

  /** Whether the integration's pending work reached the cap; a promise only when the store is asked. */
  full(environmentId: string, providerConfigKey: string, now: number): boolean | Promise<boolean> {
    if (this.max <= 0) return false;
    const key = `${environmentId}\n${providerConfigKey}`;
    const inbound = this.inboundOf(key, now);
    if (inbound >= this.max) return true;
    const stored = this.stored.get(key, now);
    if (stored !== undefined) return inbound + stored >= this.max;
    return this.count(key, environmentId, providerConfigKey, now).then((n) => this.inboundOf(key, now) + n >= this.max);
  }

  /** `n` notifications of the integration were recorded on the inbound queue at `now`. */
  received(environmentId: string, providerConfigKey: string, n: number, now: number): void {
    if (this.max <= 0 || n <= 0) return;
    const key = `${environmentId}\n${providerConfigKey}`;
    const count = this.inbound.get(key);
    if (count === undefined) this.inbound.set(key, { n, movedAt: now });
    else count.n += n;
  }

  /**
   * The inbound worker is done with one of the integration's notifications (forwarded or dropped). It
   * moves to the stored count until the next recount, as if it became one message: between counts, the
   * cap errs on the side of refusing.
   */
  processed(environmentId: string, providerConfigKey: string, now: number): void {
    const key = `${environmentId}\n${providerConfigKey}`;
    const count = this.inbound.get(key);
    // None counted: recorded before a restart, or by another process.
    if (count === undefined) return;
    if (count.n <= 1) this.inbound.delete(key);
    else {
      count.n--;
      count.movedAt = now;
    }
    const stored = this.stored.peek(key);
    if (stored !== undefined) this.stored.set(key, stored.value + 1, stored.until);
  }

  /** Notifications counted in memory, all integrations (for tests and logs). */
  get inboundTotal(): number {
    let total = 0;
    for (const count of this.inbound.values()) total += count.n;
    return total;
  }

  /** The integration's count, dropped when it has not fallen for INBOUND_STALE_MS. */
  private inboundOf(key: string, now: number): number {
    const count = this.inbound.get(key);
    if (count === undefined) return 0;
    if (now - count.movedAt < INBOUND_STALE_MS) return count.n;
    this.inbound.delete(key);
    return 0;
  }

  /** The store's count of the integration's messages not yet final; one count at a time per integration. */
  private count(key: string, environmentId: string, providerConfigKey: string, now: number): Promise<number> {
    let counting = this.counting.get(key);
    if (counting === undefined) {
      counting = this.store
        .countPending(environmentId, providerConfigKey, this.max)
        .then((n) => {
          this.stored.set(key, n, now + Math.max(1, this.recountMs));
          return n;
        })
        .finally(() => this.counting.delete(key));
      this.counting.set(key, counting);
    }
    return counting;
  }
}
