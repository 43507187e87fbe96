import { Code } from "@connectrpc/connect";
import { fromConnectError, type Logger } from "@junction/platform";
import { errorResponse, httpStatus, toErrorResponse } from "../http/error-response.ts";

/** What a notification's 503 asks the upstream to wait before sending it again. */
export const INTAKE_RETRY_AFTER_SECONDS = 5;

/**
 * The Connect codes of a dependency that failed rather than of a refusal: a reset, refused or killed
 * peer (Unavailable, and Aborted or Canceled from older transports), a deadline, a store or bus
 * error (Internal, Unknown, DataLoss), a peer that does not serve the call yet (Unimplemented).
 */
const DEPENDENCY_FAILURES = new Set([
  Code.Canceled,
  Code.Unknown,
  Code.DeadlineExceeded,
  Code.Aborted,
  Code.Unimplemented,
  Code.Internal,
  Code.Unavailable,
  Code.DataLoss,
]);

/**
 * The answer to a notification that was not recorded because of `err`. A refusal of the notification
 * itself (an unknown webhook URL, a bad token or body, a body too large) keeps its 4xx: sent again,
 * it would be refused again. Anything else is a dependency that failed, and answers 503 with
 * Retry-After, whatever the failure's own status: upstreams resend only on 500, 502, 503 and 504
 * (Google's push channels), so a 409, 429 or 499 would lose a notification that was never recorded.
 */
export function intakeFailure(err: unknown, logger: Logger, requestId: string): Response {
  const domain = fromConnectError(err);
  const status = httpStatus(domain.code, domain.status);
  const refusal = status < 500 && status !== 429 && !DEPENDENCY_FAILURES.has(domain.status);
  if (refusal) return toErrorResponse(domain, logger, requestId);
  logger.warn("notification not recorded: a dependency failed; answered 503 for the upstream to resend it", {
    requestId,
    code: domain.code,
    cause: err,
  });
  // A stable code the dependency chose (say, the provider's key server unavailable) is kept with its words.
  const own = domain.status === Code.Unavailable && domain.code !== "service_unavailable";
  return errorResponse(
    503,
    own ? domain.code : "service_unavailable",
    own
      ? domain.message
      : `The notification could not be recorded: a service Junction depends on failed. Send it again later (request id ${requestId}).`,
    [],
    { "retry-after": String(INTAKE_RETRY_AFTER_SECONDS) },
  );
}
