import { describe, expect, test } from "bun:test";
import { create, fromJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { RunStatus, ScriptRunSchema } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { actionAnswer } from "./action-answer.ts";

const ended = (
  status: RunStatus,
  error?: { name: string; message: string; stack?: string; status?: number; body?: unknown },
) =>
  create(ScriptRunSchema, {
    id: "run_1",
    status,
    ...(error
      ? {
          error: {
            name: error.name,
            message: error.message,
            stack: error.stack ?? "",
            status: error.status ?? 0,
            ...(error.body === undefined ? {} : { body: fromJson(ValueSchema, error.body as never) }),
          },
        }
      : {}),
  });
const read = async (res: Response) => [res.status, await res.json()];

describe("actionAnswer", () => {
  test("a success answers what exec returned, null when it returned nothing", async () => {
    const run = ended(RunStatus.SUCCEEDED);
    expect(await read(actionAnswer(run))).toEqual([200, null]);
    run.output = fromJson(ValueSchema, { ok: [1] });
    expect(await read(actionAnswer(run))).toEqual([200, { ok: [1] }]);
  });

  test("a thrown ActionError answers Nango's code with its payload, an object payload as it is", async () => {
    const [status, body] = await read(
      actionAnswer(ended(RunStatus.FAILED, { name: "ActionError", message: "m", body: { reason: "r" } })),
    );
    expect(status).toBe(500);
    expect(body).toEqual({
      error: {
        code: "action_script_runtime_error",
        message: "The action failed: m (run run_1)",
        run_id: "run_1",
        payload: { reason: "r" },
      },
    });
    const [, words] = await read(
      actionAnswer(ended(RunStatus.FAILED, { name: "ActionError", message: "m", body: "w" })),
    );
    expect(words.error.payload).toEqual({ message: "w" });
  });

  test("an API call that failed uncaught is 424 script_http_error with the upstream's status and body", async () => {
    const run = ended(RunStatus.FAILED, {
      name: "ScriptApiError",
      message: "GET /x failed",
      status: 404,
      body: { e: 1 },
    });
    const [status, body] = await read(actionAnswer(run));
    expect(status).toBe(424);
    expect(body.error).toMatchObject({
      code: "script_http_error",
      payload: { e: 1 },
      upstream: { status: 404, body: { e: 1 } },
    });
  });

  test("any other error is 500 script_internal_error with its name, message and stack", async () => {
    const run = ended(RunStatus.FAILED, { name: "TypeError", message: "x is undefined", stack: "at exec (a.ts:3:1)" });
    const [status, body] = await read(actionAnswer(run));
    expect(status).toBe(500);
    expect(body.error).toMatchObject({
      code: "script_internal_error",
      message: "The action failed: TypeError: x is undefined (run run_1)",
      payload: { name: "TypeError", message: "x is undefined", stacktrace: "at exec (a.ts:3:1)" },
    });
  });

  test("a run the sandbox refused is 503 runtime_unavailable: nothing ran, trying again may do", async () => {
    const run = ended(RunStatus.FAILED, { name: "RuntimeUnavailable", message: "too many runs waiting" });
    const [status, body] = await read(actionAnswer(run));
    expect([status, body.error.code]).toEqual([503, "runtime_unavailable"]);
  });

  test.each([
    [RunStatus.TIMED_OUT, 504, "execution_timeout"],
    [RunStatus.MEMORY_EXCEEDED, 500, "execution_memory_exceeded"],
    [RunStatus.CRASHED, 500, "execution_crashed"],
  ])("a sandbox that stopped the run (%p) answers %p %p", async (runStatus, status, code) => {
    const [got, body] = await read(actionAnswer(ended(runStatus, { name: "X", message: "stopped" })));
    expect([got, body.error.code, body.error.run_id]).toEqual([status, code, "run_1"]);
    expect(body.error.message).toContain("X: stopped");
  });

  test("a run given up in the line is 503 runtime_unavailable; a cancelled one 409 run_cancelled", async () => {
    const waited = await read(
      actionAnswer(ended(RunStatus.FAILED, { name: "QueueTimeoutError", message: "the run waited 300000 ms" })),
    );
    expect(waited[0]).toBe(503);
    expect(waited[1].error).toMatchObject({ code: "runtime_unavailable", run_id: "run_1" });
    const cancelled = await read(actionAnswer(ended(RunStatus.FAILED, { name: "CancelledError", message: "stopped" })));
    expect(cancelled[0]).toBe(409);
    expect(cancelled[1].error).toMatchObject({
      code: "run_cancelled",
      message: "The action was cancelled: CancelledError: stopped (run run_1)",
    });
  });
});
