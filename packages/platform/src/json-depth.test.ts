import { describe, expect, test } from "bun:test";
import { deepJsonField, deepValueField, MAX_JSON_DEPTH, nestsDeeper } from "./json-depth.ts";

function nested(levels: number, open = '{"a":', close = "}"): string {
  return `${open.repeat(levels)}1${close.repeat(levels)}`;
}

describe("deepJsonField", () => {
  test("takes values of 32 levels and names the field of one deeper", () => {
    expect(deepJsonField(`{"id":"x","metadata":${nested(MAX_JSON_DEPTH)}}`)).toBeNull();
    expect(deepJsonField(`{"id":"x","metadata":${nested(MAX_JSON_DEPTH + 1)}}`)).toBe("metadata");
    expect(deepJsonField(`{"input":${nested(MAX_JSON_DEPTH + 1, "[", "]")}}`)).toBe("input");
  });

  test("names an array body's element by its index", () => {
    expect(deepJsonField(`[1,{"b":2},${nested(40, "[", "]")}]`)).toBe("2");
  });

  test("ignores brackets and escaped quotes inside strings", () => {
    const text = `{"a\\"{[":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\"{{{{","b":${nested(MAX_JSON_DEPTH)}}`;
    expect(deepJsonField(text)).toBeNull();
    expect(deepJsonField(`{"k\\\\":${nested(MAX_JSON_DEPTH + 1)}}`)).toBe("k\\");
  });

  test("reads a 100,000-deep body in a few milliseconds without parsing it", () => {
    const started = performance.now();
    expect(deepJsonField(`{"m":${nested(100_000)}}`)).toBe("m");
    expect(deepJsonField("[".repeat(100_000))).toBe("0");
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe("deepValueField", () => {
  test("names the top-level field whose value nests too deep, byte arrays being leaves", () => {
    const deep = JSON.parse(nested(MAX_JSON_DEPTH + 1));
    expect(deepValueField({ $typeName: "x", body: new Uint8Array(8), metadata: JSON.parse(nested(32)) })).toBeNull();
    expect(deepValueField({ other: 1, metadata: deep })).toBe("metadata");
  });

  test("walks a 100,000-deep value without exhausting the stack", () => {
    const deep = JSON.parse(nested(100_000, "[", "]"));
    expect(nestsDeeper(deep)).toBe(true);
    expect(nestsDeeper(JSON.parse(nested(MAX_JSON_DEPTH, "[", "]")))).toBe(false);
  });
});
