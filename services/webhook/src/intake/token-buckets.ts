import { ExpiringCache } from "@junction/platform";

/** A bucket's tokens at `at` (Unix ms); below 0 when a batch took more than were left. */
interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets by key (an integration, a channel), on the caller's clock: `ratePerSecond` tokens a
 * second up to `burst`. A bucket full again is the same as none, so its entry ends then; at most
 * `maxKeys` are kept, the least recently used forgotten first (forgetting one refills it: a flood of
 * distinct keys is bounded by the limit above it, not by this map).
 */
export class TokenBuckets<K> {
  private readonly buckets: ExpiringCache<K, Bucket>;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    maxKeys: number,
    now: () => number,
  ) {
    this.buckets = new ExpiringCache({ maxEntries: maxKeys, now });
  }

  /** Keys tracked now (expired entries included until pushed out). */
  get size(): number {
    return this.buckets.size;
  }

  /** Milliseconds until `key` has a whole token: 0 when it has one now, or when there is no limit. */
  waitMs(key: K, now: number): number {
    if (this.ratePerSecond <= 0) return 0;
    const tokens = this.tokens(key, now);
    // The epsilon keeps a float's last bit from adding a millisecond.
    return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 1000) / this.ratePerSecond - 1e-9);
  }

  /**
   * Takes `n` tokens. A batch may take more than are left (checked with `waitMs` first, it had one):
   * the bucket then owes them and refills from below zero.
   */
  take(key: K, n: number, now: number): void {
    if (this.ratePerSecond <= 0 || n <= 0) return;
    const tokens = this.tokens(key, now) - n;
    const fullAt = now + ((this.burst - tokens) * 1000) / this.ratePerSecond;
    this.buckets.set(key, { tokens, at: now }, fullAt);
  }

  private tokens(key: K, now: number): number {
    const bucket = this.buckets.get(key, now);
    if (bucket === undefined) return this.burst;
    const refilled = (Math.max(0, now - bucket.at) * this.ratePerSecond) / 1000;
    return Math.min(this.burst, bucket.tokens + refilled);
  }
}
