// Reading the JSON bodies of Google's channel and watch calls, leniently: a field of the wrong type reads as absent.
export { parseObject, text } from "../json-fields.ts";

/** The upstream writes expiration as a string of Unix milliseconds; callers may send a number. */
export function millis(value: unknown): number {
  const n = typeof value === "string" && /^\d{1,16}$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : 0;
}
