import { randomBytes } from "node:crypto";

/** A random URL-safe string; `prefix` mimics the shape of the real value (e.g. `ya29.`). */
export function randomId(prefix = "", bytes = 24): string {
  return prefix + randomBytes(bytes).toString("base64url");
}
