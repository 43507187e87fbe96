import { describe, expect, test } from "bun:test";
import { JunctionError } from "./errors.ts";
import { idTimeBound, newId, parseId } from "./ids.ts";

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

  test("count up by one in their last 8 digits, across every digit, whatever the prefixes in between", () => {
    const digits = "0123456789abcdefghjkmnpqrstvwxyz";
    const decode = (s: string) => [...s].reduce((v, c) => v * 32 + digits.indexOf(c), 0);
    // 3000 ids in one millisecond carry past the last two digits at least twice.
    const ids = Array.from({ length: 3000 }, (_, i) => newId(i % 7 === 3 ? "msg" : "conn", 6_000));
    for (let i = 1; i < ids.length; i++) {
      const [a, b] = [ids[i - 1] as string, ids[i] as string];
      expect(b).toMatch(/^(conn|msg)_[0-9a-hjkmnp-tv-z]{26}$/);
      expect(decode(b.slice(-8))).toBe(decode(a.slice(-8)) + 1);
      expect(b.slice(-26, -8)).toBe(a.slice(-26, -8));
    }
  });

  test("sort after ids of an earlier millisecond even when the clock steps back", () => {
    const a = newId("conn", 9_000);
    const b = newId("conn", 8_000);
    expect(a < b).toBe(true);
  });
});

describe("the random part", () => {
  test("draws 40 bits per half", () => {
    const digits = "0123456789abcdefghjkmnpqrstvwxyz";
    const decode = (s: string) => [...s].reduce((v, c) => v * 32 + digits.indexOf(c), 0);
    // Each id in a millisecond after the last one used draws new random halves.
    const last = decode(newId("req").slice(4, 14));
    const highHalves = Array.from({ length: 64 }, (_, i) => decode(newId("req", last + 1 + i).slice(14, 22)));
    expect(highHalves.some((v) => v >= 2 ** 32)).toBe(true);
    expect(highHalves.every((v) => v < 2 ** 40)).toBe(true);
  });
});

describe("idTimeBound", () => {
  test("sorts after every id made before the time and before every id made at or after it", () => {
    const t = Date.UTC(2031, 0, 1);
    const bound = idTimeBound("msg", t);
    // Made by hand: newId is monotonic within the process, so earlier times could carry a later one.
    const before = `${idTimeBound("msg", t - 1)}zzzzzzzzzzzzzzzz`;
    const at = `${bound}0000000000000000`;
    const after = `${idTimeBound("msg", t + 1)}0000000000000000`;
    expect(before < bound).toBe(true);
    expect(bound <= at).toBe(true);
    expect(bound < after).toBe(true);
    // The time part is newId's: 48 bits of milliseconds as 10 base32 digits.
    expect(idTimeBound("msg", 0)).toBe("msg_0000000000");
    expect(idTimeBound("msg", 33)).toBe("msg_0000000011");
    expect(idTimeBound("msg", 2 ** 40)).toBe("msg_0100000000");
  });
});
