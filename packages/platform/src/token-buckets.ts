/** A bucket's tokens at `at` (Unix ms), below 0 when a batch took more than were left; full again at `fullAt`. */
interface Bucket {
  tokens: number;
  at: number;
  fullAt: number;
}

/**
 * Token buckets by key (an integration, a channel, a client address), on the caller's clock: `ratePerSecond` tokens a
 * second up to `burst`. A bucket full again is the same as none. At most `maxKeys` are kept, in two
 * generations of half each: when the newer is full it becomes the older and the older is forgotten
 * (a forgotten bucket starts full: a flood of distinct keys is bounded by the limit above it, not by
 * this map). Not a Map evicting its oldest entry: under a flood of distinct keys that costs ~7 µs a
 * key in Bun (its iteration skips the deleted entries), this costs a Map set.
 */
export class TokenBuckets<K> {
  private newer = new Map<K, Bucket>();
  private older = new Map<K, Bucket>();
  private readonly half: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    maxKeys: number,
  ) {
    this.half = Math.max(1, Math.floor(maxKeys / 2));
  }

  /** Keys remembered now, at most `maxKeys` (a key in both generations counts twice). */
  get size(): number {
    return this.newer.size + this.older.size;
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
    const bucket = this.newer.get(key);
    if (bucket !== undefined) {
      bucket.tokens = tokens;
      bucket.at = now;
      bucket.fullAt = fullAt;
      return;
    }
    if (this.newer.size >= this.half) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(key, { tokens, at: now, fullAt });
  }

  private tokens(key: K, now: number): number {
    const bucket = this.newer.get(key) ?? this.older.get(key);
    if (bucket === undefined || bucket.fullAt <= now) return this.burst;
    const refilled = (Math.max(0, now - bucket.at) * this.ratePerSecond) / 1000;
    return Math.min(this.burst, bucket.tokens + refilled);
  }
}
