import { randomBytes } from "node:crypto";
import { invalidArgument } from "./errors.ts";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower-case

export type IdPrefix = "env" | "key" | "int" | "conn" | "msg" | "ntf" | "run" | "ep" | "att" | "sess" | "chn" | "scr";

/** A new prefixed id: a 48-bit millisecond timestamp then 80 random bits, so ids sort by creation. */
export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  let time = "";
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let rand = "";
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      rand += ALPHABET[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return `${prefix}_${time}${rand}`;
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
