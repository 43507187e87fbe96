import { describe, expect, test } from "bun:test";
import { nextDueAfter } from "./next-due.ts";

const DAY = 86_400_000;

describe("nextDueAfter", () => {
  test("is one period later when that is still ahead", () => {
    expect(nextDueAfter(1000, DAY, 1000)).toBe(1000 + DAY);
    expect(nextDueAfter(1000, DAY, 1000 + DAY - 1)).toBe(1000 + DAY);
  });

  test("skips the due times already past, staying on the grid", () => {
    expect(nextDueAfter(1000, DAY, 1000 + DAY)).toBe(1000 + 2 * DAY);
    expect(nextDueAfter(1000, DAY, 1000 + 3 * DAY + 5)).toBe(1000 + 4 * DAY);
  });
});
