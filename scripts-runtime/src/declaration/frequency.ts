/**
 * A sync frequency understood: the text as written, its period in milliseconds, and the interval as
 * Nango reports it back (`"every hour"` → `"1h"`, `"every 5 minutes"` → `"5 minutes"`).
 */
export interface Frequency {
  text: string;
  ms: number;
  interval: string;
}

export type FrequencyParse = { ok: true; frequency: Frequency } | { ok: false; reason: string };

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** As the `ms` package Nango parses with counts a year. */
const YEAR = 365.25 * DAY;

/** Shortest period accepted (Nango's minimum too): more often is a busy loop against the upstream. */
export const MIN_FREQUENCY_MS = 30 * SECOND;
/** Longest period accepted (Nango has none): past this, due dates stop meaning anything. */
export const MAX_FREQUENCY_MS = 100 * YEAR;
/** Nango's parser refuses longer text. */
const MAX_TEXT = 100;

/** The units of Nango's grammar (vercel/ms), and `wk`/`wks` that Junction accepted before. */
const UNITS: Record<string, number> = {
  ms: 1,
  msec: 1,
  msecs: 1,
  millisecond: 1,
  milliseconds: 1,
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
  wks: WEEK,
  week: WEEK,
  weeks: WEEK,
  y: YEAR,
  yr: YEAR,
  yrs: YEAR,
  year: YEAR,
  years: YEAR,
};

/** Nango's aliases, with the interval it reports for them; then Junction's own words. */
const ALIASES: Record<string, [number, string]> = {
  "every half day": [12 * HOUR, "12h"],
  "every half hour": [30 * MINUTE, "30m"],
  "every quarter hour": [15 * MINUTE, "15m"],
  "every hour": [HOUR, "1h"],
  "every day": [DAY, "1d"],
  "every month": [30 * DAY, "30d"],
  "every week": [WEEK, "1w"],
  hourly: [HOUR, "1h"],
  daily: [DAY, "1d"],
  weekly: [WEEK, "1w"],
};

const UNIT_HELP = "ms, s, m, h, d, w, y or seconds, minutes, hours, days, weeks, years";

/**
 * Parses a sync frequency in Nango's language: its aliases (`every half day`, `every quarter hour`,
 * `every month`...), else an optional `every ` then a number and a unit as the `ms` package reads
 * them (`1d`, `1.5h`, `5 minutes`; no unit means milliseconds), at least 30 seconds. Junction also
 * takes any case and spacing, `daily`/`hourly`/`weekly` and `every <unit>` (`every minute`). The
 * reason for a refusal names what was wrong, so that an upload error can quote it.
 */
export function parseFrequency(input: unknown): FrequencyParse {
  if (typeof input !== "string") {
    return { ok: false, reason: `frequency must be a string like "1d" or "every 5 minutes", got ${describe(input)}` };
  }
  const text = input.trim().toLowerCase().replace(/\s+/g, " ");
  if (text === "") return { ok: false, reason: 'frequency is empty: write something like "1d" or "every 5 minutes"' };
  if (text.length > MAX_TEXT) return { ok: false, reason: `frequency is longer than ${MAX_TEXT} characters` };
  const alias = ALIASES[text];
  if (alias) return bounded(input, alias[0], alias[1]);

  const every = text.startsWith("every ");
  const rest = every ? text.slice("every ".length) : text;
  const match = /^(-?(?:\d+)?\.?\d+)? ?([a-z]+)?$/.exec(rest);
  if (!match || (match[1] === undefined && match[2] === undefined)) {
    return {
      ok: false,
      reason: `frequency "${input}" does not parse: write a number and a unit, like "1d", "12h" or "every 5 minutes"`,
    };
  }
  const [, amount, unitName] = match as unknown as [string, string | undefined, string | undefined];
  const unit = unitName === undefined ? 1 : UNITS[unitName];
  if (unit === undefined) {
    return { ok: false, reason: `frequency "${input}": unknown unit "${unitName}" (use ${UNIT_HELP})` };
  }
  if (amount === undefined && !every) {
    return {
      ok: false,
      reason: `frequency "${input}" has no number: write "1${unitName?.[0]}" or "every ${unitName}"`,
    };
  }
  const count = amount === undefined ? 1 : Number(amount);
  if (count === 0) return { ok: false, reason: `frequency "${input}" is zero: a sync needs a period` };
  if (count < 0) return { ok: false, reason: `frequency "${input}" is negative: a sync needs a period` };
  const interval = input.trim().replace(/^every\s+/i, "");
  return bounded(input, Math.round(count * unit), amount === undefined ? `1 ${interval}` : interval);
}

function bounded(input: string, ms: number, interval: string): FrequencyParse {
  if (ms < MIN_FREQUENCY_MS) {
    return { ok: false, reason: `frequency "${input}" is shorter than the minimum of 30 seconds` };
  }
  if (ms > MAX_FREQUENCY_MS) {
    return { ok: false, reason: `frequency "${input}" is longer than the maximum of 100 years` };
  }
  return { ok: true, frequency: { text: input.trim(), ms, interval } };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}
