import { describe, expect, test } from "bun:test";
import { actionInputErrors, schemaProblem } from "./action-input.ts";

describe("action input schemas", () => {
  const schema = {
    type: "object",
    properties: {
      title: { type: "string", minLength: 1 },
      attendees: { type: "array", items: { type: "object", required: ["email"] } },
    },
    required: ["title"],
    additionalProperties: false,
  };

  test("input that matches has no errors", () => {
    expect(actionInputErrors(schema, { title: "Standup", attendees: [{ email: "a@b.c" }] })).toEqual([]);
  });

  test("each mismatch is named by its path under input", () => {
    const errors = actionInputErrors(schema, { title: "", attendees: [{ name: "x" }], extra: 1 });
    expect(errors.map((e) => e.path).sort()).toEqual(["input", "input.attendees.0.email", "input.title"]);
  });

  test("a required name without a property is still required, as JSON Schema says", () => {
    expect(actionInputErrors({ type: "object", required: ["n"] }, { m: 1 }).map((e) => e.path)).toEqual(["input.n"]);
    expect(actionInputErrors({ type: "object", required: ["n"] }, { n: null })).toEqual([]);
  });

  test("missing input against an object schema is an error at input", () => {
    expect(actionInputErrors(schema, undefined)).toEqual([{ location: "body", path: "input", message: "is required" }]);
  });

  test("messages are Junction's words, never the checker's", () => {
    const errors = actionInputErrors(schema, { title: 5, attendees: "x", extra: 1 });
    expect(errors.map((e) => e.message).join("\n")).not.toMatch(
      /\bexpected\b|\breceived\b|Invalid input|Too (big|small)/,
    );
    expect(errors.find((e) => e.path === "input.title")?.message).toBe("must be a string, not a whole number");
  });

  test("a schema that cannot check anything is named at deploy", () => {
    expect(schemaProblem(schema)).toBeNull();
    expect(schemaProblem({ type: "frob" })).toBe("Unsupported type: frob");
    expect(schemaProblem({ $ref: "#/nope" })).toContain("#/nope");
  });
});
