import { randomBytes } from "node:crypto";
import { invalidArgument } from "./errors.ts";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower-case

export type IdPrefix = "env" | "key" | "int" | "conn" | "msg" | "ntf" | "run" | "ep" | "att" | "sess" | "chn" | "scr";

let lastTime = -1;
let lastRandom = 0n;
const RANDOM_BITS = 80n;
const RANDOM_MAX = (1n << RANDOM_BITS) - 1n;

/**
 * A new prefixed id: a 48-bit millisecond timestamp then 80 random bits, so ids sort by creation.
 * Monotonic within a process: ids made in the same millisecond (or with a clock that stands still, as
 * in tests) increment the random part instead of drawing a new one, so they still sort in order.
 */
export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  let time = Math.floor(nowMs);
  let random: bigint;
  if (time <= lastTime && lastRandom < RANDOM_MAX) {
    time = lastTime;
    random = lastRandom + 1n;
  } else {
    random = BigInt(`0x${randomBytes(10).toString("hex")}`);
  }
  lastTime = time;
  lastRandom = random;
  let timePart = "";
  for (let i = 0; i < 10; i++) {
    timePart = ALPHABET[time % 32] + timePart;
    time = Math.floor(time / 32);
  }
  let randomPart = "";
  for (let i = 0; i < 16; i++) {
    randomPart = ALPHABET[Number(random & 31n)] + randomPart;
    random >>= 5n;
  }
  return `${prefix}_${timePart}${randomPart}`;
}

const ID_RE = /^[a-z]+_[0-9a-hjkmnp-tv-z]{26}$/;

/** Checks that `value` is an id with the given prefix; throws a 400-class error otherwise. */
export function parseId(prefix: IdPrefix, value: string, field = "id"): string {
  if (!value.startsWith(`${prefix}_`) || !ID_RE.test(value)) {
    throw invalidArgument("invalid_id", `${field} must be an id starting with "${prefix}_"`, [
      { path: field, message: `expected a ${prefix}_ id` },
    ]);
  }
  return value;
}

/** A random URL-safe token of `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
