import { describe, expect, test } from "bun:test";
import { invalidArgument, memoryLogger } from "@junction/platform";
import { RecordingHost } from "../../testing/recording-host.ts";
import { dispatchHostCall, type HostReply } from "./host-dispatch.ts";

const call = async (host: RecordingHost, method: string, args: unknown, maxReply = 1 << 20, logger = memoryLogger()) =>
  JSON.parse(await dispatchHostCall(host, method, JSON.stringify(args), maxReply, logger)) as HostReply;

describe("dispatchHostCall", () => {
  test("unknown functions and malformed arguments never reach the host", async () => {
    const host = new RecordingHost();
    expect(await call(host, "readFile", ["/etc/passwd"])).toEqual({
      ok: false,
      error: { type: "TypeError", message: 'unknown script API function "readFile"' },
    });
    expect(await call(host, "constructor", [])).toMatchObject({ ok: false, error: { type: "TypeError" } });
    expect(await call(host, "__proto__", [])).toMatchObject({ ok: false, error: { type: "TypeError" } });
    expect(await call(host, "setMetadata", [])).toMatchObject({ ok: false, error: { type: "TypeError" } });
    expect(await call(host, "setMetadata", [{ a: 1 }, "extra"])).toMatchObject({
      ok: false,
      error: { type: "TypeError" },
    });
    expect(await call(host, "proxy", [{ endpoint: "/x", method: "GET", extra: 1 }])).toMatchObject({
      ok: false,
      error: { type: "TypeError", message: expect.stringContaining('Unrecognized key: "extra"') },
    });
    const raw = await dispatchHostCall(host, "getMetadata", "not json", 1 << 20);
    expect(JSON.parse(raw)).toMatchObject({ ok: false, error: { type: "TypeError" } });
    expect(host.calls).toEqual([]);
  });

  test("an upstream status of 400 or more becomes an API error with status, body and headers", async () => {
    const host = new RecordingHost();
    host.routes.set("/gone", { status: 410, headers: { "x-reason": "gone" }, data: { error: "gone" } });
    expect(await call(host, "proxy", [{ endpoint: "/gone", method: "DELETE" }])).toEqual({
      ok: false,
      error: {
        type: "ScriptApiError",
        message: "DELETE /gone failed with status 410",
        status: 410,
        body: { error: "gone" },
        headers: { "x-reason": "gone" },
      },
    } as HostReply);
  });

  test("a domain error keeps its public code; an unknown one is logged and hidden", async () => {
    const host = new RecordingHost();
    host.getConnection = async () => {
      throw invalidArgument("unknown_connection", "Connection not found");
    };
    host.getMetadata = async () => {
      throw new Error("token ya29.secret-token leaked in a stack");
    };
    expect(await call(host, "getConnection", [null, null])).toMatchObject({
      ok: false,
      error: { type: "ScriptApiError", message: "Connection not found", code: "unknown_connection" },
    });
    const logger = memoryLogger();
    const reply = await dispatchHostCall(host, "getMetadata", "[]", 1 << 20, logger);
    expect(reply).not.toContain("ya29");
    expect(JSON.parse(reply)).toMatchObject({ ok: false, error: { status: 500, code: "internal_error" } });
    expect(logger.lines.join("\n")).toContain("script API call failed");
  });

  test("a result larger than the script may hold is refused instead of sent", async () => {
    const host = new RecordingHost();
    host.metadata = { big: "x".repeat(10_000) };
    expect(await call(host, "getMetadata", [], 1000)).toMatchObject({
      ok: false,
      error: { type: "ScriptApiError", status: 413 },
    });
  });
});
