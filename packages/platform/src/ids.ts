import { randomBytes } from "node:crypto";
import { invalidArgument } from "./errors.ts";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower-case

export type IdPrefix =
  | "env"
  | "key"
  | "int"
  | "conn"
  | "msg"
  | "ntf"
  | "run"
  | "ep"
  | "att"
  | "sess"
  | "chn"
  | "scr"
  | "req"
  | "op";

// The 80 random bits are kept as two 40-bit halves in plain numbers (exact below 2^53): no BigInt
// on a path every request takes.
const HALF = 2 ** 40;
const HALF_LOW = 2 ** 20;
let lastTime = -1;
let lastHigh = 0;
let lastLow = 0;
// The written forms of the timestamp and the high half: within one millisecond only the low half
// changes, and mostly only its last two digits (`head` keeps the rest), so a request id costs one lookup.
let timeText = "";
let highText = "";
/** The id's text but its last two digits, for `headPrefix` and the low half's digits above them (`headLow`). */
let head = "";
let headPrefix = "";
let headLow = -1;

/** Every pair of digits, indexed by its 10-bit value: numbers are written two digits at a time. */
const PAIRS: string[] = Array.from({ length: 1024 }, (_, i) => `${ALPHABET[i >> 5]}${ALPHABET[i & 31]}`);

/** Random bytes drawn in blocks: one system call per 409 new milliseconds rather than one per id. */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function randomHalf(): number {
  if (poolAt + 5 > pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  const b = pool;
  const i = poolAt;
  poolAt += 5;
  const low32 =
    (((b[i + 1] as number) << 24) |
      ((b[i + 2] as number) << 16) |
      ((b[i + 3] as number) << 8) |
      (b[i + 4] as number)) >>>
    0;
  return (b[i] as number) * 2 ** 32 + low32;
}

/**
 * A new prefixed id: a 48-bit millisecond timestamp then 80 random bits, so ids sort by creation.
 * Monotonic within a process: ids made in the same millisecond (or with a clock that stands still, as
 * in tests) increment the random part instead of drawing a new one, so they still sort in order.
 */
export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  const time = Math.floor(nowMs);
  if (time <= lastTime && !(lastHigh === HALF - 1 && lastLow === HALF - 1)) {
    lastLow += 1;
    if (lastLow === HALF) {
      lastLow = 0;
      lastHigh += 1;
      highText = base32x8(lastHigh);
      headPrefix = "";
    }
  } else {
    lastTime = time;
    lastHigh = randomHalf();
    lastLow = randomHalf();
    timeText = `${PAIRS[Math.floor(time / HALF) & 1023]}${base32x8(time % HALF)}`;
    highText = base32x8(lastHigh);
    headPrefix = "";
  }
  // All but the last two digits, written once per 1024 ids of a prefix (one millisecond's, mostly).
  const lowHead = Math.floor(lastLow / 1024);
  if (prefix !== headPrefix || lowHead !== headLow) {
    headPrefix = prefix;
    headLow = lowHead;
    head = flat(
      `${prefix}_${timeText}${highText}${PAIRS[lowHead >> 20]}${PAIRS[(lowHead >> 10) & 1023]}${PAIRS[lowHead & 1023]}`,
    );
  }
  return `${head}${PAIRS[lastLow & 1023]}`;
}

/** `text` as one flat string: it is copied into every id of its millisecond, not chained to each. */
function flat(text: string): string {
  // Reading a character makes the engine lay the parts of a concatenation out in one string.
  text.charCodeAt(0);
  return text;
}

/**
 * A string that sorts after every id with this prefix made before `ms` and before every one made at
 * or after it: the prefix and the id's time part. For "older than" range queries on time-sortable ids.
 */
export function idTimeBound(prefix: IdPrefix, ms: number): string {
  const time = Math.floor(ms);
  return `${prefix}_${PAIRS[Math.floor(time / HALF) & 1023]}${base32x8(time % HALF)}`;
}

/** A number below 2^40 as 8 base32 digits. */
function base32x8(value: number): string {
  const high = Math.floor(value / HALF_LOW);
  const low = value % HALF_LOW;
  return `${PAIRS[high >> 10]}${PAIRS[high & 1023]}${PAIRS[low >> 10]}${PAIRS[low & 1023]}`;
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
