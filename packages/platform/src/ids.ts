import { randomBytes } from "node:crypto";
import { invalidArgument } from "./errors.ts";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower-case

export type IdPrefix = "env" | "key" | "int" | "conn" | "msg" | "ntf" | "run" | "ep" | "att" | "sess" | "chn" | "scr";

// The 80 random bits are kept as two 40-bit halves in plain numbers (exact below 2^53): no BigInt
// on a path every request takes.
const HALF = 2 ** 40;
let lastTime = -1;
let lastHigh = 0;
let lastLow = 0;

/**
 * A new prefixed id: a 48-bit millisecond timestamp then 80 random bits, so ids sort by creation.
 * Monotonic within a process: ids made in the same millisecond (or with a clock that stands still, as
 * in tests) increment the random part instead of drawing a new one, so they still sort in order.
 */
export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  let time = Math.floor(nowMs);
  let high: number;
  let low: number;
  if (time <= lastTime && !(lastHigh === HALF - 1 && lastLow === HALF - 1)) {
    time = lastTime;
    low = lastLow + 1;
    high = lastHigh;
    if (low === HALF) {
      low = 0;
      high += 1;
    }
  } else {
    const bytes = randomBytes(10);
    high = bytes.readUIntBE(0, 5);
    low = bytes.readUIntBE(5, 5);
  }
  lastTime = time;
  lastHigh = high;
  lastLow = low;
  return `${prefix}_${base32(time, 10)}${base32(high, 8)}${base32(low, 8)}`;
}

function base32(value: number, digits: number): string {
  let out = "";
  let v = value;
  for (let i = 0; i < digits; i++) {
    out = ALPHABET[v % 32] + out;
    v = Math.floor(v / 32);
  }
  return out;
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
