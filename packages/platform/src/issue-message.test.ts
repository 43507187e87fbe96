import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { issueMessage, reportableIssues } from "./issue-message.ts";

function messages(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value, { error: issueMessage });
  if (result.success) throw new Error("expected a failure");
  return result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

describe("issueMessage", () => {
  test("says what a wrong kind of value should be and what it was, in Junction's words", () => {
    const schema = z.object({
      name: z.string().max(10),
      count: z.number().int(),
      on: z.boolean(),
      list: z.array(z.string()),
    });
    expect(messages(schema, { name: 5, count: "3", on: "yes", list: {} })).toEqual([
      "name: must be a string, not a whole number",
      "count: must be a number, not a string",
      "on: must be true or false, not a string",
      "list: must be a list, not an object",
    ]);
    expect(messages(schema, {})[0]).toBe("name: is required");
  });

  test("limits name their unit; formats and choices say what is accepted", () => {
    expect(messages(z.string().max(10), "x".repeat(11))).toEqual([": must be at most 10 characters long"]);
    expect(messages(z.string().min(1), "")).toEqual([": must not be empty"]);
    expect(messages(z.array(z.string()).max(2), ["a", "b", "c"])).toEqual([": must be at most 2 items long"]);
    expect(messages(z.number().int().min(0).max(5), 9)).toEqual([": must be at most 5"]);
    expect(messages(z.number().int(), 1.5)).toEqual([": must be a whole number, not a number"]);
    expect(messages(z.string().url(), "nope")).toEqual([": must be an absolute URL"]);
    expect(messages(z.enum(["a", "b"]), "c")).toEqual([': must be one of "a", "b"']);
    expect(messages(z.literal("OAUTH2"), "x")).toEqual([': must be "OAUTH2"']);
  });

  test("a message the schema sets itself is kept", () => {
    expect(
      messages(
        z.string().refine((s) => s === "ok", "must say ok"),
        "no",
      ),
    ).toEqual([": must say ok"]);
    expect(messages(z.string().regex(/^a/, "must start with a"), "b")).toEqual([": must start with a"]);
  });

  test("never uses a library's phrasing", () => {
    const schema = z.object({
      a: z.string().max(3),
      b: z.union([z.string(), z.array(z.string())]),
      c: z.record(z.string().regex(/^[a-z]+$/), z.string()),
      d: z.number().multipleOf(5),
    });
    const all = messages(schema, { a: 1, b: 2, c: { "A!": "x" }, d: 7 }).join("\n");
    expect(all).not.toMatch(/\bexpected\b|\breceived\b|Invalid input|Too big|Too small|[<>]=/);
  });
});

describe("reportableIssues", () => {
  test("a value of the wrong kind is reported once, without the checks meant for the right kind", () => {
    const schema = z.object({ endpoints: z.array(z.string().url()).max(10), name: z.string().max(3) });
    const parsed = schema.safeParse({ endpoints: "http://localhost:8080/", name: "long" }, { error: issueMessage });
    expect(parsed.success).toBe(false);
    const reported = reportableIssues(parsed.error?.issues ?? []).map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(reported).toEqual(["endpoints: must be a list, not a string", "name: must be at most 3 characters long"]);
  });
});
