import type { z } from "zod";

/** What a value is called in messages, by the JSON kind zod names. */
const KIND: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  bigint: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  record: "an object",
  tuple: "a list",
  date: "a date",
  null: "null",
};

/** How a format zod checks is called in messages. */
const FORMAT: Record<string, string> = {
  url: "an absolute URL",
  email: "an email address",
  uuid: "a UUID",
  datetime: "an ISO 8601 date and time",
  date: "an ISO 8601 date",
  regex: "in the accepted form",
};

/** The JSON kind of a received value, as named in messages. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "number") return Number.isInteger(value) ? "a whole number" : "a number";
  return KIND[typeof value] ?? typeof value;
}

/** "10 characters", "3 items", "100": the unit a limit is counted in. */
function measure(origin: string, n: number | bigint): string {
  if (origin === "string") return `${n} character${n === 1 || n === 1n ? "" : "s"}`;
  if (origin === "array" || origin === "set") return `${n} item${n === 1 || n === 1n ? "" : "s"}`;
  if (origin === "file") return `${n} bytes`;
  return String(n);
}

/** The subject of a limit: "be at most 10 characters long", "be at most 100". */
function limit(origin: string, bound: "at most" | "at least" | "exactly", n: number | bigint, strict: boolean): string {
  if (origin === "string" || origin === "array" || origin === "set" || origin === "file") {
    const word = bound === "exactly" ? "exactly" : bound;
    return `must be ${word} ${measure(origin, n)} long`;
  }
  if (bound === "exactly") return `must be ${n}`;
  if (strict) return bound === "at most" ? `must be less than ${n}` : `must be greater than ${n}`;
  return `must be ${bound} ${n}`;
}

/**
 * Junction's words for a zod issue, used as the per-parse error map: a message a schema sets itself
 * (`.refine(…, "…")`) takes precedence, so only zod's built-in phrasings ("Too big: expected string to
 * have <=10 characters") are replaced. The field and where it was are named beside the message.
 */
export function issueMessage(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      return `must be ${KIND[issue.expected] ?? issue.expected}, not ${kindOf(issue.input)}`;
    case "too_big":
      return limit(issue.origin, issue.exact ? "exactly" : "at most", issue.maximum, issue.inclusive === false);
    case "too_small":
      if (issue.origin === "string" && issue.minimum === 1 && !issue.exact) return "must not be empty";
      return limit(issue.origin, issue.exact ? "exactly" : "at least", issue.minimum, issue.inclusive === false);
    case "invalid_format":
      if (issue.format === "starts_with") return `must start with "${issue.prefix}"`;
      if (issue.format === "ends_with") return `must end with "${issue.suffix}"`;
      if (issue.format === "includes") return `must contain "${issue.includes}"`;
      return `must be ${FORMAT[issue.format] ?? `a valid ${issue.format}`}`;
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "invalid_value":
      if (issue.values.length === 1) return `must be ${JSON.stringify(issue.values[0])}`;
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_union":
      return "does not match any of the accepted forms";
    case "invalid_key":
      return "has a key that is not allowed";
    case "invalid_element":
      return "has an entry that is not allowed";
    case "unrecognized_keys":
      return `has unknown fields: ${issue.keys.join(", ")}`;
    default:
      return "is not valid";
  }
}

/**
 * The issues worth reporting: where a value is of the wrong kind, zod still runs the checks meant for the right
 * kind on it (a string given for a list of at most 10 items also fails "at most 10 characters long"); only
 * the kind is the caller's mistake, so the other issues at that path are left out.
 */
export function reportableIssues<I extends { code: string; path: PropertyKey[] }>(issues: readonly I[]): I[] {
  const wrongKind = new Set(issues.filter((i) => i.code === "invalid_type").map((i) => pathKey(i.path)));
  if (wrongKind.size === 0) return [...issues];
  return issues.filter((i) => i.code === "invalid_type" || !wrongKind.has(pathKey(i.path)));
}

function pathKey(path: PropertyKey[]): string {
  return JSON.stringify(path.map(String));
}
