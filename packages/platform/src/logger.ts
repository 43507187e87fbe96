import { loadLogLevel } from "./config.ts";

/** Structured JSON logs, one object per line. Fields whose names look secret are redacted. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_FIELD = /secret|token|password|authorization|api[-_]?key|credential|cookie|^code$|code_verifier/i;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  /** Whether lines at `level` are written: a caller whose fields cost something to build asks first. */
  enabled(level: LogLevel): boolean;
  /**
   * A line whose fields are given as JSON already (`"name":value,…`): no record is built or serialised.
   * For a hot path's fixed fields only: the caller escapes every value (JSON.stringify) and names no
   * field that `redact` would hide.
   */
  line(level: LogLevel, msg: string, fieldsJson: string): void;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; stdout by default. Tests capture them here. */
  sink?: (line: string) => void;
  base?: Record<string, unknown>;
}

/** Replaces values of secret-looking keys, recursively, so a stray token never reaches a log. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_FIELD.test(k) && v !== undefined && v !== null && v !== "" ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

/**
 * Fields as `redact` leaves them: the object itself when no name looks secret and every value is a primitive
 * (nothing to hide or copy: a hot path's own facts, such as a delivery attempt's status and latency), else a
 * redacted copy.
 */
export function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  for (const k in fields) if (!keptAsIs(k, fields[k])) return redact(fields) as Record<string, unknown>;
  return fields;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  // Read once: children inherit it instead of parsing the setting again.
  const level = options.level ?? loadLogLevel();
  const min = LEVELS[level] ?? 20;
  const sink = options.sink;
  const base = options.base ?? {};
  // The same record as `{ ts, level, msg, ...redact({ ...base, ...fields }) }`, built without the
  // intermediate objects: the gateway writes one line per request. Records for stdout are turned into
  // JSON when their tick's lines are written (`flush`), not here: the record is already a copy of the
  // fields (`redact` copies objects), and serialising a batch at once costs a busy proxy less than one
  // record at a time between its requests.
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < min) return;
    const record: Record<string, unknown> = { ts: timestamp(), level, msg };
    for (const k in base) record[k] = redactField(k, base[k]);
    if (fields) for (const k in fields) record[k] = redactField(k, fields[k]);
    if (sink) sink(serialize(record));
    else queueForStdout(record);
  };
  const baseJson = membersOf(redact(base) as Record<string, unknown>);
  // What follows a line's time (its level, message and the base fields) is the same for a hot path's
  // lines: written once for them all.
  let afterTs = "";
  let afterTsOf: [level: LogLevel, msg: string] = ["info", ""];
  const line = (level: LogLevel, msg: string, fieldsJson: string) => {
    if (LEVELS[level] < min) return;
    if (level !== afterTsOf[0] || msg !== afterTsOf[1] || afterTs === "") {
      afterTs = `","level":"${level}","msg":${JSON.stringify(msg)}${baseJson}`;
      afterTsOf = [level, msg];
    }
    const text = `{"ts":"${timestamp()}${afterTs}${fieldsJson === "" ? "" : ","}${fieldsJson}}`;
    if (sink) sink(text);
    else queueForStdout(text);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => createLogger({ level, sink, base: { ...base, ...fields } }),
    enabled: (level) => LEVELS[level] >= min,
    line,
  };
}

/** An object's members as JSON with a leading comma ("" for none), to splice after a line's first fields. */
function membersOf(fields: Record<string, unknown>): string {
  const json = serialize(fields);
  return json === "{}" ? "" : `,${json.slice(1, -1)}`;
}

/**
 * A record as one JSON line. A field JSON cannot hold (a BigInt, a cycle past `redact`'s depth) costs
 * the line its fields, not the caller an exception: logging never fails the work it describes.
 */
function serialize(record: Record<string, unknown>): string {
  try {
    return JSON.stringify(record);
  } catch {
    return JSON.stringify({ ts: record.ts, level: record.level, msg: record.msg, logError: "fields not serialisable" });
  }
}

/** Whether `redact` leaves a field as it is: nothing in it, or a plain value under a name that does not look secret. */
function keptAsIs(key: string, value: unknown): boolean {
  if (value === undefined || value === null || value === "") return true;
  return typeof value !== "object" && !isSecretField(key);
}

/** One field of a record as `redact` writes it. */
function redactField(key: string, value: unknown): unknown {
  if (keptAsIs(key, value)) return value;
  return isSecretField(key) ? "[redacted]" : redact(value, 1);
}

/** Field names seen so far and whether they look secret (a bounded memo of SECRET_FIELD). */
const secretFields = new Map<string, boolean>();

function isSecretField(key: string): boolean {
  let secret = secretFields.get(key);
  if (secret === undefined) {
    secret = SECRET_FIELD.test(key);
    if (secretFields.size < 1000) secretFields.set(key, secret);
  }
  return secret;
}

// Lines of one millisecond share their timestamp text.
let stampedAt = Number.NaN;
let stamp = "";

function timestamp(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    const second = Math.floor(now / 1000);
    // Within a second only the milliseconds change: `toISOString` once a second (years 1970–9999,
    // whose form is fixed: "YYYY-MM-DDTHH:MM:SS.mmmZ").
    if (second !== stampedSecond || now < 0 || now >= LAST_FIXED_FORM_MS) {
      const iso = new Date(now).toISOString();
      stampedSecond = second;
      secondText = iso.slice(0, 20);
      stamp = iso;
    } else {
      stamp = `${secondText}${MILLIS[now - second * 1000]}Z`;
    }
  }
  return stamp;
}

let stampedSecond = Number.NaN;
let secondText = "";
/** 10000-01-01T00:00:00Z: from there `toISOString` writes six year digits. */
const LAST_FIXED_FORM_MS = 253402300800000;
/** "000" to "999": a timestamp's milliseconds. */
const MILLIS: string[] = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));

/** A logger that keeps lines in memory, for tests. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", sink: (l) => lines.push(l) });
  return Object.assign(logger, { lines });
}

// Records written in the same tick go out in one write: a busy gateway logs every request, and one
// syscall per line was a measurable share of a proxied request. At most one tick of lines is lost
// if the process is killed with SIGKILL; a normal exit flushes.
let pending: (Record<string, unknown> | string)[] = [];
let scheduled = false;

function flush(): void {
  scheduled = false;
  if (pending.length === 0) return;
  const records = pending;
  pending = [];
  let chunk = "";
  for (const record of records) chunk += `${typeof record === "string" ? record : serialize(record)}\n`;
  process.stdout.write(chunk);
}

function queueForStdout(record: Record<string, unknown> | string): void {
  pending.push(record);
  if (pending.length >= 256) flush();
  else if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
}

process.once("exit", flush);
