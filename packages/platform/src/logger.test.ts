import { describe, expect, spyOn, test } from "bun:test";
import { createLogger, memoryLogger, redact, redactFields } from "./logger.ts";

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

  test("a field JSON cannot hold costs the line its fields, not the caller an exception", () => {
    const log = memoryLogger();
    expect(() => log.info("counted", { n: 10n, requestId: "req_1" })).not.toThrow();
    expect(JSON.parse(log.lines[0] as string)).toMatchObject({
      level: "info",
      msg: "counted",
      logError: "fields not serialisable",
    });
  });

  test("lines for stdout are written together at the end of the tick, each as it was logged", async () => {
    const write = spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      const log = createLogger({ level: "info", base: { component: "gateway" } });
      const fields: Record<string, unknown> = { status: 200, nested: { a: 1 } };
      log.info("first", fields);
      // The record is a copy: changing the fields after the call does not change the line.
      fields.status = 500;
      (fields.nested as { a: number }).a = 2;
      log.warn("second", { big: 1n });
      log.debug("dropped");
      expect(write).not.toHaveBeenCalled();
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(write).toHaveBeenCalledTimes(1);
      const lines = String(write.mock.calls[0]?.[0]).split("\n");
      expect(lines.length).toBe(3);
      expect(lines[2]).toBe("");
      expect(JSON.parse(lines[0] as string)).toMatchObject({
        level: "info",
        msg: "first",
        component: "gateway",
        status: 200,
        nested: { a: 1 },
      });
      expect(JSON.parse(lines[1] as string)).toMatchObject({
        level: "warn",
        msg: "second",
        logError: "fields not serialisable",
      });
    } finally {
      write.mockRestore();
    }
  });

  test("a line given its fields as JSON is the line info() writes with them, base fields redacted", () => {
    const lines: string[] = [];
    const log = createLogger({ level: "info", sink: (l) => lines.push(l), base: { component: "gateway", token: "t" } });
    log.info("request", { requestId: "req_1", status: 200 });
    log.line("info", "request", '"requestId":"req_1","status":200');
    log.line("warn", "other", "");
    // The same text but for the time (a millisecond may pass between the two).
    const untimed = (l: string | undefined) => (l as string).replace(/"ts":"[^"]*"/, "");
    expect(untimed(lines[1])).toBe(untimed(lines[0]));
    expect(JSON.parse(lines[1] as string)).toEqual({
      ts: expect.any(String),
      level: "info",
      msg: "request",
      component: "gateway",
      token: "[redacted]",
      requestId: "req_1",
      status: 200,
    });
    expect(JSON.parse(lines[2] as string)).toMatchObject({ level: "warn", msg: "other", component: "gateway" });
  });

  test("enabled() says which levels are written; line() writes none below the level", () => {
    const lines: string[] = [];
    const log = createLogger({ level: "warn", sink: (l) => lines.push(l) });
    expect([log.enabled("debug"), log.enabled("info"), log.enabled("warn"), log.enabled("error")]).toEqual([
      false,
      false,
      true,
      true,
    ]);
    log.line("info", "request", '"status":200');
    expect(lines).toEqual([]);
  });

  test("every line's time is toISOString's, within a second, across seconds and outside 1970–9999", () => {
    const lines: string[] = [];
    const log = createLogger({ level: "info", sink: (l) => lines.push(l) });
    const base = Date.UTC(2026, 10, 29, 7, 3, 12, 998);
    const times = [base, base, base + 1, base + 2, base + 3, base + 1003, -1500, 253402300800000 + 5, base + 7, 0];
    const now = spyOn(Date, "now");
    try {
      for (const t of times) {
        now.mockReturnValue(t);
        log.info("a");
        log.line("info", "b", "");
      }
    } finally {
      now.mockRestore();
    }
    const stamps = lines.map((l) => (JSON.parse(l) as { ts: string }).ts);
    expect(stamps).toEqual(times.flatMap((t) => [new Date(t).toISOString(), new Date(t).toISOString()]));
  });
});

describe("redactFields", () => {
  test("leaves fields of plain values and harmless names as they are, without a copy", () => {
    const fields = { messageId: "msg_1", statusCode: 200, latencyMs: 3.5, error: null, code: "" };
    expect(redactFields(fields)).toBe(fields);
  });

  test("copies and redacts when a name looks secret or a value is an object", () => {
    const secret = { status: 200, refresh_token: "r3fresh" };
    const out = redactFields(secret);
    expect(out).not.toBe(secret);
    expect(out).toEqual({ status: 200, refresh_token: "[redacted]" });
    expect(secret.refresh_token).toBe("r3fresh");
    const nested = { upstream: { authorization: "Bearer x" }, n: 1 };
    expect(redactFields(nested)).toEqual({ upstream: { authorization: "[redacted]" }, n: 1 });
    expect(redactFields({ code: "4/0Ab" })).toEqual({ code: "[redacted]" });
  });
});
