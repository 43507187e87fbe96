import { describe, expect, test } from "bun:test";
import { memoryLogger, redact } from "./logger.ts";

describe("logger", () => {
  test("writes one JSON object per line with level and message", () => {
    const log = memoryLogger();
    log.child({ component: "x" }).info("hello", { n: 1 });
    const line = JSON.parse(log.lines[0] as string);
    expect(line).toMatchObject({ level: "info", msg: "hello", n: 1, component: "x" });
  });

  test("redacts secret-looking fields at any depth", () => {
    expect(
      redact({ accessToken: "a", nested: { client_secret: "b", ok: "c" }, list: [{ authorization: "d" }], code: "e" }),
    ).toEqual({
      accessToken: "[redacted]",
      nested: { client_secret: "[redacted]", ok: "c" },
      list: [{ authorization: "[redacted]" }],
      code: "[redacted]",
    });
  });

  test("logs errors by name and message, without stacks", () => {
    const log = memoryLogger();
    log.error("failed", { cause: new Error("boom") });
    expect(log.lines[0]).toContain('"cause":{"name":"Error","message":"boom"}');
    expect(log.lines[0]).not.toContain("at ");
  });
});
