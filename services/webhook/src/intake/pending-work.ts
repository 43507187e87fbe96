import { ExpiringCache } from "@junction/platform";
import type { WebhookDeliveryStore } from "../store/store.ts";

/** Integrations whose stored count is remembered at once (there are few; this bounds the map). */
const MAX_COUNTED = 10_000;

/**
 * The work an integration has pending, for intake's cap (issue 25, item 1): its notifications
 * recorded here and not yet processed by the inbound worker (counted in memory as they are enqueued
 * and processed), plus its messages not yet final (counted in the store, durable, so right after a
 * restart; recounted at most every `recountMs`, never per request; a notification processed counts as
 * one message until then). A notification left on the queue
 * by a crash is not in the first count after the restart: the worker takes it first, and it was
 * recorded under the cap, so the cap is exceeded by at most one cap's worth, once.
 */
export class PendingWork {
  private readonly inbound = new Map<string, number>();
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
    const inbound = this.inbound.get(key) ?? 0;
    if (inbound >= this.max) return true;
    const stored = this.stored.get(key, now);
    if (stored !== undefined) return inbound + stored >= this.max;
    return this.count(key, environmentId, providerConfigKey, now).then(
      (n) => (this.inbound.get(key) ?? 0) + n >= this.max,
    );
  }

  /** `n` notifications of the integration were recorded on the inbound queue. */
  received(environmentId: string, providerConfigKey: string, n: number): void {
    if (this.max <= 0 || n <= 0) return;
    const key = `${environmentId}\n${providerConfigKey}`;
    this.inbound.set(key, (this.inbound.get(key) ?? 0) + n);
  }

  /**
   * The inbound worker is done with one of the integration's notifications (forwarded or dropped). It
   * moves to the stored count until the next recount, as if it became one message: between counts, the
   * cap errs on the side of refusing.
   */
  processed(environmentId: string, providerConfigKey: string): void {
    const key = `${environmentId}\n${providerConfigKey}`;
    const n = this.inbound.get(key);
    // None counted: recorded before a restart, or by another process.
    if (n === undefined) return;
    if (n <= 1) this.inbound.delete(key);
    else this.inbound.set(key, n - 1);
    const stored = this.stored.peek(key);
    if (stored !== undefined) this.stored.set(key, stored.value + 1, stored.until);
  }

  /** Notifications counted in memory, all integrations (for tests and logs). */
  get inboundTotal(): number {
    let total = 0;
    for (const n of this.inbound.values()) total += n;
    return total;
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
