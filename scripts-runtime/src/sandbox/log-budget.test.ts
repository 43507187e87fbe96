import { describe, expect, test } from "bun:test";
import type { LogLevel } from "../runtime/run-types.ts";
import { cutToBytes, LogBudget, truncationMarker } from "./log-budget.ts";

describe("LogBudget", () => {
  test("passes lines until the budget, cuts the crossing line, adds one marker, then drops", () => {
    const lines: [LogLevel, string][] = [];
    const budget = new LogBudget(10, (level, message) => lines.push([level, message]));
    expect(budget.write("info", "12345")).toBe(true);
    expect(budget.write("error", "6789abcdef")).toBe(false);
    expect(budget.write("info", "dropped")).toBe(false);
    expect(budget.truncated).toBe(true);
    expect(lines).toEqual([
      ["info", "12345"],
      ["error", "6789a"],
      ["warn", truncationMarker(10)],
    ]);
  });

  test("counts UTF-8 bytes and never splits a character", () => {
    expect(cutToBytes("ééé", 3)).toBe("é");
    expect(cutToBytes("a😀b", 4)).toBe("a");
    expect(cutToBytes("a😀b", 5)).toBe("a😀");
    expect(cutToBytes("abc", 10)).toBe("abc");
  });
});
