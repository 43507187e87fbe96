import { randomBytes } from "node:crypto";

/** A random URL-safe string; `prefix` mimics the shape of the real value (e.g. `ya29.`). */
export function randomId(prefix = "", bytes = 24): string {
  return prefix + randomBytes(bytes).toString("base64url");
}

/** Lowercase base32hex, the alphabet Google Calendar allows in event ids. */
export function randomEventId(): string {
  const alphabet = "0123456789abcdefghijklmnopqrstuv";
  return Array.from(randomBytes(26), (b) => alphabet[b % 32]).join("");
}
