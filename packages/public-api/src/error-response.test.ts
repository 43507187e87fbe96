import { describe, expect, test } from "bun:test";
import { fromItemError, memoryLogger, toItemError } from "@junction/platform";
import { toErrorResponse } from "./error-response.ts";

describe("toErrorResponse", () => {
  test("a batch item's internal failure answers internal_error with the request id, its cause not sent", async () => {
    const serviceLog = memoryLogger();
    const thrown = fromItemError(toItemError(new Error("disk on fire"), serviceLog, "GetThings"));
    const res = toErrorResponse(thrown, memoryLogger(), "req_123");
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("internal_error");
    expect(body.error.message).toContain("req_123");
    expect(JSON.stringify(body)).not.toContain("disk on fire");
  });
});
