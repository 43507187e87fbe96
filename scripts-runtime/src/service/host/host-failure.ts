import { toErrorResponse } from "@junction/public-api/error-response";
import type { Logger } from "@junction/platform";
import type { JsonValue } from "../../runtime/run-types.ts";
import { ScriptHostError } from "../../runtime/script-host.ts";

/**
 * Statuses of Junction's own failures (never an upstream's answer) that say "try again later": a
 * service or the upstream unreachable, a timeout, a refresh held by another process.
 */
const TRANSIENT_STATUSES = new Set([502, 503, 504]);

/** Records, per run, whether a script API call failed because something was unavailable. */
export class FailureLog {
  transient = 0;
}

/**
 * Turns an error of a service call made for a script into the error the script sees: the same status
 * and body as the REST API would answer (`{"error":{"code","message"}}`), an internal error logged and
 * shown without its cause. Transient failures are counted in `failures` (they make a lifecycle or
 * onWebhook run be tried again).
 */
export async function scriptFailure(
  err: unknown,
  what: string,
  logger: Logger,
  runId: string,
  failures: FailureLog,
): Promise<ScriptHostError> {
  if (err instanceof ScriptHostError) return err;
  const res = toErrorResponse(err, logger, runId);
  const body = (await res.json()) as { error: { code: string; message: string } };
  if (TRANSIENT_STATUSES.has(res.status)) failures.transient++;
  return new ScriptHostError(
    `${what} failed: ${body.error.message}`,
    res.status,
    body as unknown as JsonValue,
    body.error.code,
  );
}
