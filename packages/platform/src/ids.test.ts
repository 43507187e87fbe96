import { describe, expect, test } from "bun:test";
import { JunctionError } from "./errors.ts";
import { newId, parseId } from "./ids.ts";

describe("ids", () => {
  test("are prefixed, unique and sort by creation time", () => {
    const a = newId("conn", 1_000);
    const b = newId("conn", 2_000);
    expect(a).toMatch(/^conn_[0-9a-z]{26}$/);
    expect(a < b).toBe(true);
    expect(new Set(Array.from({ length: 1000 }, () => newId("msg"))).size).toBe(1000);
  });

  test("are checked when parsed", () => {
    const id = newId("int");
    expect(parseId("int", id)).toBe(id);
    expect(() => parseId("conn", id)).toThrow(JunctionError);
    expect(() => parseId("int", "int_short")).toThrow(/int_/);
  });
});

describe("ids made in the same millisecond", () => {
  test("still sort in creation order", () => {
    const ids = Array.from({ length: 500 }, () => newId("conn", 5_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(500);
  });

  test("sort after ids of an earlier millisecond even when the clock steps back", () => {
    const a = newId("conn", 9_000);
    const b = newId("conn", 8_000);
    expect(a < b).toBe(true);
  });
});
