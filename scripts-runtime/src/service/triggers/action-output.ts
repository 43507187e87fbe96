import type { RunResult } from "../../runtime/run-types.ts";

/** Largest action result kept and answered, as JSON text (Nango's cap for an async result). */
export const MAX_ACTION_OUTPUT_BYTES = 2 * 1024 * 1024;

/**
 * An action run's result with its output kept when it succeeded (`null` for `undefined`), or turned
 * into a failure when the output is larger than can be answered: the caller must not get half of it.
 */
export function keepActionOutput(result: RunResult): RunResult {
  if (result.status !== "succeeded") return result;
  const output = result.output ?? null;
  const bytes = Buffer.byteLength(JSON.stringify(output));
  if (bytes <= MAX_ACTION_OUTPUT_BYTES) return { ...result, output };
  const { output: _dropped, ...rest } = result;
  return {
    ...rest,
    status: "failed",
    error: {
      name: "ActionOutputTooLarge",
      message: `the action returned ${bytes} bytes of JSON, more than the ${MAX_ACTION_OUTPUT_BYTES} bytes an action may answer`,
    },
  };
}
