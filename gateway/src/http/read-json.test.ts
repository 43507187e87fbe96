import { describe, expect, test } from "bun:test";
import { JunctionError } from "@junction/platform";
import { z } from "zod";
import { parseWith } from "./read-json.ts";

function failure(run: () => unknown): JunctionError {
  try {
    run();
  } catch (err) {
    if (err instanceof JunctionError) return err;
    throw err;
  }
  throw new Error("expected a JunctionError");
}

describe("parseWith", () => {
  const schema = z.object({ a: z.string(), nested: z.object({ b: z.number() }).strict().optional() }).strict();

  test("names the location it is given on every field error and in the message", () => {
    const err = failure(() => parseWith(schema, { a: 1 }, "invalid_headers", "header"));
    expect(err.code).toBe("invalid_headers");
    expect(err.errors).toEqual([{ location: "header", path: "a", message: expect.any(String) }]);
    expect(err.message).toStartWith("Invalid headers: a: ");
  });

  test("lists each unknown field on its own, with its full path", () => {
    const err = failure(() => parseWith(schema, { a: "x", colour: 1, nested: { b: 1, c: 2 } }, "invalid_body", "body"));
    expect(err.errors).toEqual([
      { location: "body", path: "nested.c", message: "is not a known field" },
      { location: "body", path: "colour", message: "is not a known field" },
    ]);
  });

  test("a whole input of the wrong kind is named by its location, not as a body", () => {
    const err = failure(() => parseWith(schema, [], "invalid_query_params", "query"));
    expect(err.errors[0]).toMatchObject({ location: "query", path: "(query)" });
    expect(err.message).toStartWith("Invalid query parameters: (query): ");
  });

  test("callers that give no location get the one their code is about", () => {
    expect(failure(() => parseWith(schema, { a: "x", q: 1 }, "invalid_query_params")).errors[0]).toEqual({
      location: "query",
      path: "q",
      message: "is not a known parameter",
    });
    expect(failure(() => parseWith(schema, {}, "invalid_body")).errors[0]?.location).toBe("body");
  });

  test("returns the parsed value when it is valid", () => {
    expect(parseWith(schema, { a: "x" }, "invalid_body", "body")).toEqual({ a: "x" });
  });
});
