import { describe, expect, test } from "bun:test";
import { Code } from "@connectrpc/connect";
import { fromItemError, toItemError } from "./connect.ts";
import { fromConnectError, notFound } from "./errors.ts";
import { memoryLogger } from "./logger.ts";

describe("toItemError", () => {
  test("an unknown error becomes internal_error, the code of every other internal failure, its cause logged", () => {
    const log = memoryLogger();
    const item = toItemError(new Error("disk on fire"), log, "GetThings");
    expect(item).toEqual({ status: Code.Internal, code: "internal_error", message: "internal error" });
    expect(log.lines.join("\n")).toContain("disk on fire");
    expect(fromConnectError(fromItemError(item)).code).toBe("internal_error");
  });

  test("a domain error keeps its stable code and message", () => {
    const item = toItemError(notFound("unknown_connection", "No such connection."), memoryLogger(), "GetThings");
    expect(item).toEqual({ status: Code.NotFound, code: "unknown_connection", message: "No such connection." });
  });
});
