import { describe, expect, test } from "bun:test";
import { parseFrequency } from "./frequency.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe("parseFrequency", () => {
  test.each([
    ["1d", DAY],
    ["12h", 12 * HOUR],
    ["30m", 30 * MIN],
    ["45s", 45_000],
    ["2w", 14 * DAY],
    ["5 minutes", 5 * MIN],
    ["every 5 minutes", 5 * MIN],
    ["every minute", MIN],
    ["every day", DAY],
    ["every 2 hours", 2 * HOUR],
    ["every half hour", 30 * MIN],
    ["Every  Day ", DAY],
    ["daily", DAY],
    ["hourly", HOUR],
    ["1 day", DAY],
  ])("reads %p as a period", (text, ms) => {
    expect(parseFrequency(text)).toEqual({ ok: true, frequency: { text: text.trim(), ms } });
  });

  test.each([
    ["every fortnight", 'unknown unit "fortnight"'],
    ["5 parsecs", 'unknown unit "parsecs"'],
    ["1.5h", "whole number"],
    ["0m", "is zero"],
    ["10s", "shorter than the minimum of 30 seconds"],
    ["400d", "longer than the maximum of 366 days"],
    ["soon-ish", "does not parse"],
    ["", "is empty"],
    ["minutes", "has no number"],
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
  });
});
