import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { RunStatus, type ScriptRun } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { json } from "../../http/json.ts";
import type { ErrorCode } from "../../openapi/error-codes.ts";

type Json = ReturnType<typeof toJson>;

/**
 * The answer to an action run that has ended, as Nango gives it: 200 with what exec returned, or its
 * failure in the one error body with the run id (follow it with GET /scripts/runs/{id}) and Nango's
 * `payload` (and `upstream` for an API call that failed): 500 `action_script_runtime_error` for a
 * thrown ActionError, 424 `script_http_error` for a failed API call the action did not catch, 500
 * `script_internal_error` for any other thrown error, 504 `execution_timeout` past the deadline,
 * 500 `execution_memory_exceeded` past the memory cap, 500 `execution_crashed` when its sandbox died,
 * 503 `runtime_unavailable` when the sandbox refused the run or it waited too long for a sandbox
 * process (nothing ran), 409 `run_cancelled` when it was cancelled (POST /scripts/runs/{id}/cancel).
 */
export function actionAnswer(run: ScriptRun): Response {
  if (run.status === RunStatus.SUCCEEDED) return json(run.output ? toJson(ValueSchema, run.output) : null);
  const e = run.error;
  const said = e ? `${e.name}: ${e.message}` : "no error was recorded";
  const body = e?.body ? toJson(ValueSchema, e.body) : undefined;
  const fail = (status: number, code: string, message: string, extra: Record<string, Json> = {}) =>
    json({ error: { code, message: `${message} (run ${run.id})`, run_id: run.id, ...extra } }, status);
  switch (run.status) {
    case RunStatus.TIMED_OUT:
      return fail(504, "execution_timeout", `The action did not finish within its deadline: ${said}`);
    case RunStatus.MEMORY_EXCEEDED:
      return fail(500, "execution_memory_exceeded", `The action exceeded its memory limit: ${said}`);
    case RunStatus.CRASHED:
      return fail(500, "execution_crashed", `The action's sandbox died: ${said}`);
  }
  if (e?.name === "RuntimeUnavailable" || e?.name === "QueueTimeoutError") {
    return fail(503, "runtime_unavailable", `The action could not start, nothing ran; try again: ${said}`);
  }
  if (e?.name === "CancelledError") return fail(409, "run_cancelled", `The action was cancelled: ${said}`);
  if (e?.name === "ActionError") {
    return fail(500, "action_script_runtime_error", `The action failed: ${e.message}`, { payload: asObject(body) });
  }
  if (e?.status) {
    return fail(424, "script_http_error", `An API call of the action failed and was not caught: ${said}`, {
      payload: asObject(body),
      upstream: { status: e.status, body: body ?? null },
    });
  }
  const payload: Record<string, Json> = { name: e?.name ?? "Error", message: e?.message ?? "" };
  if (e?.stack) payload.stacktrace = e.stack;
  return fail(500, "script_internal_error", `The action failed: ${said}`, { payload });
}

/** The codes actionAnswer answers a failed run with (for the OpenAPI document). */
export const ACTION_FAILURE_CODES: ErrorCode[] = [
  "action_script_runtime_error",
  "script_http_error",
  "script_internal_error",
  "execution_timeout",
  "execution_memory_exceeded",
  "execution_crashed",
  "runtime_unavailable",
  "run_cancelled",
];

/** Nango's payload is an object: anything else is wrapped as `{message}`. */
function asObject(value: Json | undefined): Json {
  if (value === undefined || value === null) return {};
  return typeof value === "object" && !Array.isArray(value) ? value : { message: value };
}
