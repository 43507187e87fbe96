import { createHash } from "node:crypto";
import { TokenBuckets } from "@junction/platform";

/** Failed logins a client address may make at once, then one every 6 seconds (10 a minute). */
const ADDRESS_BURST = 10;
const ADDRESS_PER_SECOND = 1 / 6;
/** Failed tries of one secret key (from any address) at once, then one a minute. */
const KEY_BURST = 5;
const KEY_PER_SECOND = 1 / 60;
/** Addresses and keys remembered; a forgotten one starts afresh. */
const TRACKED = 10_000;

/**
 * The dashboard login's brake on guessing: failed logins are counted per client address and per key
 * tried, in token buckets on the injected clock. While either is empty every try from there is refused
 * (a right key too, or the brake would say which guess was right) until a token refills.
 */
export class LoginThrottle {
  private readonly addresses = new TokenBuckets<string>(ADDRESS_PER_SECOND, ADDRESS_BURST, TRACKED);
  private readonly keys = new TokenBuckets<string>(KEY_PER_SECOND, KEY_BURST, TRACKED);

  constructor(private readonly now: () => number) {}

  /** Seconds to wait before trying `key` from `address`: 0 when a try may go ahead now. */
  retryAfterSeconds(address: string, key: string): number {
    const now = this.now();
    const wait = Math.max(this.addresses.waitMs(address, now), this.keys.waitMs(keyTag(key), now));
    return Math.ceil(wait / 1000);
  }

  /** Counts a failed try. */
  failed(address: string, key: string): void {
    const now = this.now();
    this.addresses.take(address, 1, now);
    this.keys.take(keyTag(key), 1, now);
  }
}

/** What the buckets are keyed by: a digest, so no tried key stays in memory as typed. */
function keyTag(key: string): string {
  return createHash("sha256").update(key).digest("base64url");
}
