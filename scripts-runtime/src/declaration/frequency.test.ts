import { describe, expect, test } from "bun:test";
import { parseFrequency } from "./frequency.ts";

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const YEAR = 365.25 * DAY;

describe("parseFrequency", () => {
  // Nango's own cases (nango-yaml getInterval, utils getFrequencyMs, the `ms` grammar they rest on),
  // with the interval Nango reports back for them.
  test.each([
    ["every half day", 12 * HOUR, "12h"],
    ["every half hour", 30 * MIN, "30m"],
    ["every quarter hour", 15 * MIN, "15m"],
    ["every hour", HOUR, "1h"],
    ["every day", DAY, "1d"],
    ["every week", WEEK, "1w"],
    ["every month", 30 * DAY, "30d"],
    ["every 5m", 5 * MIN, "5m"],
    ["every 10m", 10 * MIN, "10m"],
    ["every 2h", 2 * HOUR, "2h"],
    ["every 3d", 3 * DAY, "3d"],
    ["every 1.5 hours", 1.5 * HOUR, "1.5 hours"],
    ["every 30m", 30 * MIN, "30m"],
    ["every 2w", 2 * WEEK, "2w"],
    ["10m", 10 * MIN, "10m"],
    ["4h", 4 * HOUR, "4h"],
    ["2d", 2 * DAY, "2d"],
    ["30s", 30 * SEC, "30s"],
    ["2w", 2 * WEEK, "2w"],
    ["1.5h", 1.5 * HOUR, "1.5h"],
    [".5h", 30 * MIN, ".5h"],
    ["1d", DAY, "1d"],
    ["12h", 12 * HOUR, "12h"],
    ["1 day", DAY, "1 day"],
    ["2 days", 2 * DAY, "2 days"],
    ["5 minutes", 5 * MIN, "5 minutes"],
    ["every 5 minutes", 5 * MIN, "5 minutes"],
    ["every 45 seconds", 45 * SEC, "45 seconds"],
    ["1 min", MIN, "1 min"],
    ["3 mins", 3 * MIN, "3 mins"],
    ["2 hrs", 2 * HOUR, "2 hrs"],
    ["1 hr", HOUR, "1 hr"],
    ["90 secs", 90 * SEC, "90 secs"],
    ["60000", MIN, "60000"],
    ["60000ms", MIN, "60000ms"],
    ["45000 milliseconds", 45 * SEC, "45000 milliseconds"],
    ["1y", YEAR, "1y"],
    ["2 years", 2 * YEAR, "2 years"],
    ["1 week", WEEK, "1 week"],
    ["5M", 5 * MIN, "5M"],
    ["2   hours", 2 * HOUR, "2   hours"],
    // Junction's own: any case and spacing, plain words, `every <unit>`.
    ["Every  Day ", DAY, "1d"],
    ["Every Hour", HOUR, "1h"],
    ["daily", DAY, "1d"],
    ["hourly", HOUR, "1h"],
    ["weekly", WEEK, "1w"],
    ["every minute", MIN, "1 minute"],
    ["every 2 wks", 2 * WEEK, "2 wks"],
  ])("reads %p as a period", (text, ms, interval) => {
    expect(parseFrequency(text)).toEqual({ ok: true, frequency: { text: text.trim(), ms, interval } });
  });

  test.each([
    // Refused by Nango too.
    ["every 20s", "shorter than the minimum of 30 seconds"],
    ["10s", "shorter than the minimum of 30 seconds"],
    ["500ms", "shorter than the minimum of 30 seconds"],
    ["  1ms  ", "shorter than the minimum of 30 seconds"],
    ["29999", "shorter than the minimum of 30 seconds"],
    ["-5m", "is negative"],
    ["0m", "is zero"],
    ["", "is empty"],
    ["invalid format", "does not parse"],
    ["abc minutes", "does not parse"],
    ["5xyz", 'unknown unit "xyz"'],
    ["every unknown period", "does not parse"],
    ["every yearasdad", 'unknown unit "yearasdad"'],
    ["every fortnight", 'unknown unit "fortnight"'],
    ["5 parsecs", 'unknown unit "parsecs"'],
    ["1.5.h", "does not parse"],
    ["1e3m", "does not parse"],
    ["soon-ish", "does not parse"],
    ["minutes", "has no number"],
    ["every", 'unknown unit "every"'],
    [`${"9".repeat(100)}d`, "longer than 100 characters"],
    // Junction's own limit: Nango has no maximum.
    ["101y", "longer than the maximum of 100 years"],
  ])("refuses %p and says why", (text, reason) => {
    const parsed = parseFrequency(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(reason);
  });

  test("refuses a frequency that is not a string", () => {
    expect(parseFrequency(86_400_000)).toEqual({
      ok: false,
      reason: 'frequency must be a string like "1d" or "every 5 minutes", got number 86400000',
    });
    expect(parseFrequency(null)).toMatchObject({ ok: false, reason: expect.stringContaining("got null") });
  });
});
