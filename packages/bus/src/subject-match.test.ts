import { describe, expect, test } from "bun:test";
import { subjectMatches } from "./subject-match.ts";

describe("subjectMatches", () => {
  test("a literal pattern matches only the same subject", () => {
    expect(subjectMatches("a.b.c", "a.b.c")).toBe(true);
    expect(subjectMatches("a.b.c", "a.b")).toBe(false);
    expect(subjectMatches("a.b", "a.b.c")).toBe(false);
  });

  test("* matches exactly one token", () => {
    expect(subjectMatches("a.*.c", "a.b.c")).toBe(true);
    expect(subjectMatches("a.*", "a.b.c")).toBe(false);
    expect(subjectMatches("a.*.c", "a.c")).toBe(false);
  });

  test("> matches one or more trailing tokens, never none", () => {
    expect(subjectMatches("a.>", "a.b")).toBe(true);
    expect(subjectMatches("a.>", "a.b.c.d")).toBe(true);
    expect(subjectMatches("a.>", "a")).toBe(false);
    expect(subjectMatches(">", "anything.at.all")).toBe(true);
  });

  test("> before the last token is not a wildcard that matches", () => {
    expect(subjectMatches("a.>.c", "a.b.c")).toBe(false);
  });
});
