/** A sync frequency understood: the text as written and its period in milliseconds. */
export interface Frequency {
  text: string;
  ms: number;
}

export type FrequencyParse = { ok: true; frequency: Frequency } | { ok: false; reason: string };

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

/** Shortest period accepted: a sync more often than this is a busy loop against the upstream. */
export const MIN_FREQUENCY_MS = 30 * SECOND;
/** Longest period accepted: anything longer is almost certainly a typo. */
export const MAX_FREQUENCY_MS = 366 * DAY;

const UNITS: Record<string, number> = {
  s: SECOND,
  sec: SECOND,
  secs: SECOND,
  second: SECOND,
  seconds: SECOND,
  m: MINUTE,
  min: MINUTE,
  mins: MINUTE,
  minute: MINUTE,
  minutes: MINUTE,
  h: HOUR,
  hr: HOUR,
  hrs: HOUR,
  hour: HOUR,
  hours: HOUR,
  d: DAY,
  day: DAY,
  days: DAY,
  w: WEEK,
  wk: WEEK,
  week: WEEK,
  weeks: WEEK,
};

const WORDS: Record<string, number> = {
  hourly: HOUR,
  daily: DAY,
  weekly: WEEK,
  "every half hour": 30 * MINUTE,
};

const UNIT_HELP = "s, m, h, d, w or seconds, minutes, hours, days, weeks";

/**
 * Parses a sync frequency the way Nango scripts write it: `1d`, `12h`, `30m`, `5 minutes`,
 * `every 5 minutes`, `every day`, `every half hour`, `daily`. Whole numbers only; the reason for a
 * refusal names what was wrong so that an upload error can quote it.
 */
export function parseFrequency(input: unknown): FrequencyParse {
  if (typeof input !== "string") {
    return { ok: false, reason: `frequency must be a string like "1d" or "every 5 minutes", got ${describe(input)}` };
  }
  const text = input.trim().toLowerCase().replace(/\s+/g, " ");
  if (text === "") return { ok: false, reason: 'frequency is empty: write something like "1d" or "every 5 minutes"' };
  const named = WORDS[text];
  if (named !== undefined) return bounded(input, named);

  const match = /^(every )?(?:(\d+(?:\.\d+)?) ?)?([a-z]+)$/.exec(text);
  if (!match) {
    return {
      ok: false,
      reason: `frequency "${input}" does not parse: write a number and a unit, like "1d", "12h" or "every 5 minutes"`,
    };
  }
  const [, every, amount, unitName] = match as unknown as [string, string | undefined, string | undefined, string];
  const unit = UNITS[unitName];
  if (unit === undefined) {
    return { ok: false, reason: `frequency "${input}": unknown unit "${unitName}" (use ${UNIT_HELP})` };
  }
  if (amount === undefined && !every) {
    return { ok: false, reason: `frequency "${input}" has no number: write "1${unitName[0]}" or "every ${unitName}"` };
  }
  if (amount?.includes(".")) {
    return { ok: false, reason: `frequency "${input}": use a whole number (for 1.5 hours write "90 minutes")` };
  }
  const count = amount === undefined ? 1 : Number(amount);
  if (count === 0) return { ok: false, reason: `frequency "${input}" is zero: a sync needs a period` };
  return bounded(input, count * unit);
}

function bounded(input: string, ms: number): FrequencyParse {
  if (ms < MIN_FREQUENCY_MS) {
    return { ok: false, reason: `frequency "${input}" is shorter than the minimum of 30 seconds` };
  }
  if (ms > MAX_FREQUENCY_MS) {
    return { ok: false, reason: `frequency "${input}" is longer than the maximum of 366 days` };
  }
  return { ok: true, frequency: { text: input.trim(), ms } };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}
