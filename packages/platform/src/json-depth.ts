import type { Interceptor } from "@connectrpc/connect";
import { type FieldError, invalidArgument, type JunctionError, toConnectError } from "./errors.ts";

/**
 * How many levels of objects and arrays one value of a request may nest (`{}` and `[]` are one level):
 * metadata, connection_config, an action's input, a provider definition's fields. The RPC wire decodes
 * a JSON value as two messages per level (Value, Struct) within a recursion limit, so a bound well
 * inside it keeps everything stored readable back.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;

/**
 * The top-level field (a key, or an index when the text is an array) whose value nests deeper than
 * `limit` levels in JSON text, read before parsing so that no parser or schema walks a deep value; null
 * when none does. It does not validate: malformed text is for the parser to refuse.
 */
export function deepJsonField(text: string, limit = MAX_JSON_DEPTH): string | null {
  let depth = 0;
  let keyStart = -1;
  let keyEnd = -1;
  let index = 0;
  let topIsArray = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (depth === 1) [keyStart, keyEnd] = [i, end];
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === 0) topIsArray = c === OPEN_ARRAY;
      if (++depth > limit + 1) return topIsArray ? String(index) : fieldName(text, keyStart, keyEnd);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    } else if (c === 44 && depth === 1) {
      index++;
    }
  }
  return null;
}

/** The index of the quote closing the string opened at `start` (the text's end when there is none). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let slashes = 0;
    for (let k = end - 1; text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

function fieldName(text: string, start: number, end: number): string {
  if (start < 0) return "(body)";
  try {
    return String(JSON.parse(text.slice(start, end + 1)));
  } catch {
    return text.slice(start + 1, end);
  }
}

/**
 * The top-level field of a parsed object (or the index of an array) whose value nests deeper than
 * `limit` levels, or null. Byte arrays are leaves, so a protobuf message object can be checked as it is.
 */
export function deepValueField(value: unknown, limit = MAX_JSON_DEPTH): string | null {
  if (!isContainer(value)) return null;
  for (const field in value) {
    if (nestsDeeper((value as Record<string, unknown>)[field], limit)) return field;
  }
  return null;
}

/**
 * Whether `value` nests more than `limit` levels. Recursive, but never deeper than `limit` + 1 calls,
 * so a deep value cannot exhaust the stack; no allocation (it runs on every service call).
 */
export function nestsDeeper(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (!isContainer(value)) return false;
  if (limit <= 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (nestsDeeper(value[i], limit - 1)) return true;
    return false;
  }
  for (const key in value) if (nestsDeeper((value as Record<string, unknown>)[key], limit - 1)) return true;
  return false;
}

function isContainer(v: unknown): v is object {
  return typeof v === "object" && v !== null && !ArrayBuffer.isView(v);
}

/** The field error of a value nested too deep, under `path`. */
export function tooDeepField(path: string, location?: FieldError["location"]): FieldError {
  return { ...(location ? { location } : {}), path, message: `nests more than ${MAX_JSON_DEPTH} levels deep` };
}

/** The error of a request whose `path` nests too deep: `code` as the caller's other validation errors. */
export function tooDeep(code: string, path: string, location?: FieldError["location"]): JunctionError {
  return invalidArgument(
    code,
    `${path} nests more than ${MAX_JSON_DEPTH} levels of objects and arrays; nothing was stored.`,
    [tooDeepField(path, location)],
  );
}

/**
 * A service's guard: a request with a value nested too deep is refused (`invalid_request`) before its
 * handler runs, whoever sent it, so no store takes what the RPC wire could not carry back.
 */
export function jsonDepthGuard(): Interceptor {
  return (next) => async (req) => {
    const field = req.stream ? null : deepValueField(req.message);
    if (field !== null) throw toConnectError(tooDeep("invalid_request", field));
    return next(req);
  };
}

/**
 * The RPC wire's decoding options: a recursion limit that reads back every value the guard lets in (two
 * messages a level) and whatever older versions stored unguarded (their writes stopped near 50 levels,
 * where the default limit of 100 failed reads already).
 */
export const RPC_BINARY_OPTIONS = { recursionLimit: 128 };
