import { describe, expect, test } from "bun:test";
import { createLogger, MetricsRegistry } from "@junction/platform";
import { requestRecorder } from "./request-log.ts";

/** The request log's line for one answered request, parsed, with the line `logger.info` writes for it. */
function lines(method: string, path: string) {
  const written: string[] = [];
  const logger = createLogger({ level: "info", sink: (l) => written.push(l), base: { component: "gateway" } });
  requestRecorder(new MetricsRegistry(), logger)(method, "/proxy/*", 200, performance.now(), "req_1", path);
  const line = JSON.parse(written[0] as string) as Record<string, unknown>;
  logger.info("request", { requestId: "req_1", method, path: line.path, status: 200, ms: line.ms });
  return { line, expected: JSON.parse(written[1] as string) as Record<string, unknown> };
}

describe("request log line", () => {
  test("is the JSON line logger.info writes, for plain and odd paths and methods", () => {
    for (const [method, path] of [
      ["GET", "/proxy/small"],
      ["GET", ""],
      ["GET", '/a"b\\c'],
      ["PO\nST", "/x\u0001y"],
      ["GET", "/caf\u00e9/\ud83d\ude00"],
      ["GET", "/lone/\ud800"],
    ] as const) {
      const { line, expected } = lines(method, path);
      expect({ ...line, ts: "" }).toEqual({ ...expected, ts: "" });
      expect(Object.keys(line)).toEqual(Object.keys(expected));
      expect(line).toMatchObject({ msg: "request", method, path, status: 200, requestId: "req_1" });
    }
  });

  test("cuts an MCP URL's id, and writes nothing below info", () => {
    expect(lines("GET", "/mcp/u/mcpu_0123456789abcdef/x").line.path).toBe("/mcp/u/mcpu_0123456…/x");
    const written: string[] = [];
    const logger = createLogger({ level: "warn", sink: (l) => written.push(l) });
    requestRecorder(new MetricsRegistry(), logger)("GET", "/proxy/*", 200, performance.now(), "req_1", "/proxy/x");
    expect(written).toEqual([]);
  });
});
