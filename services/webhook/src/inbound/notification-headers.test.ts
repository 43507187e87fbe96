import { describe, expect, test } from "bun:test";
import { headerNames, headerProblem, headerValue, MAX_HEADERS, messageNumberOf } from "./notification-headers.ts";

const GOOG = {
  channelId: "x-goog-channel-id",
  resourceUri: "x-goog-resource-uri",
  messageNumber: "x-goog-message-number",
  channelToken: "x-goog-channel-token",
};

describe("headerNames / headerValue", () => {
  test("reads the template's names first, then the spec's x-provider-* names", () => {
    const names = headerNames(GOOG);
    expect(names.resourceUri).toEqual(["x-goog-resource-uri", "x-provider-resource-uri"]);
    expect(headerValue({ "x-provider-resource-uri": "p", "x-goog-resource-uri": "g" }, names, "resourceUri")).toBe("g");
    expect(headerValue({ "x-provider-resource-uri": "p" }, names, "resourceUri")).toBe("p");
    expect(headerValue({ "x-goog-resource-uri": "  ", "x-provider-resource-uri": "p" }, names, "resourceUri")).toBe(
      "p",
    );
  });

  test("without a template only the spec's names are read", () => {
    const names = headerNames(undefined);
    expect(names.channelId).toEqual(["x-provider-channel-id"]);
    expect(headerValue({ "x-goog-channel-id": "g" }, names, "channelId")).toBeUndefined();
  });

  test("keeps the resource URI exactly as received, trims the others", () => {
    const names = headerNames(GOOG);
    expect(headerValue({ "x-goog-resource-uri": "https://x/a?b= " }, names, "resourceUri")).toBe("https://x/a?b= ");
    expect(headerValue({ "x-goog-channel-id": " ch " }, names, "channelId")).toBe("ch");
  });
});

describe("messageNumberOf", () => {
  test.each([
    ["1", 1],
    ["0042", 42],
    ["", null],
    ["-1", null],
    ["1.5", null],
    ["12abc", null],
    ["9".repeat(16), null],
  ])("%p -> %p", (raw, expected) => {
    expect(messageNumberOf({ "x-goog-message-number": raw }, headerNames(GOOG))).toBe(expected);
  });
});

describe("headerProblem", () => {
  test("accepts a normal set and refuses too many, too large, or names not lower-case", () => {
    expect(headerProblem({ "x-goog-channel-id": "c" })).toBeNull();
    const many = Object.fromEntries(Array.from({ length: MAX_HEADERS + 1 }, (_, i) => [`x-${i}`, "v"]));
    expect(headerProblem(many)).toContain("headers");
    expect(headerProblem({ "x-big": "v".repeat(40_000) })).toContain("bytes");
    expect(headerProblem({ "X-Upper": "v" })).toContain("lower-case");
  });
});
