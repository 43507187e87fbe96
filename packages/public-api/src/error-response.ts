import { Code } from "@connectrpc/connect";
import { type FieldError, fromConnectError, JunctionError, type Logger } from "@junction/platform";

/** The one table from Connect code to HTTP status. */
const STATUS_BY_CODE: Record<Code, number> = {
  [Code.Canceled]: 499,
  [Code.Unknown]: 500,
  [Code.InvalidArgument]: 400,
  [Code.DeadlineExceeded]: 504,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 429,
  [Code.FailedPrecondition]: 409,
  [Code.Aborted]: 409,
  [Code.OutOfRange]: 400,
  [Code.Unimplemented]: 501,
  [Code.Internal]: 500,
  [Code.Unavailable]: 503,
  [Code.DataLoss]: 500,
  [Code.Unauthenticated]: 401,
};

/** Stable codes whose HTTP status differs from their Connect code's usual one. */
const STATUS_BY_ERROR_CODE: Record<string, number> = {
  connection_refresh_failed: 424,
  request_too_large: 413,
  upstream_unreachable: 502,
  upstream_timeout: 504,
  method_not_allowed: 405,
  unsupported_media_type: 415,
};

/** The one error body: {"error":{"code","message","errors"?}}. */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  errors: FieldError[] = [],
  headers: Record<string, string> = {},
): Response {
  const body: { error: { code: string; message: string; errors?: FieldError[] } } = { error: { code, message } };
  if (errors.length > 0) body.error.errors = errors;
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** The HTTP status of a stable code travelling as a Connect code. */
export function httpStatus(code: string, connect: Code): number {
  return STATUS_BY_ERROR_CODE[code] ?? STATUS_BY_CODE[connect] ?? 500;
}

/** Maps anything thrown in a route to the error body; unknown errors are logged, never shown. */
export function toErrorResponse(err: unknown, logger: Logger, requestId: string): Response {
  const domain = err instanceof JunctionError ? err : fromConnectError(err);
  const status = httpStatus(domain.code, domain.status);
  if (status >= 500 && domain.code === "internal_error") {
    logger.error("request failed", { requestId, cause: err });
    return errorResponse(500, "internal_error", `Internal error. Quote request id ${requestId} when reporting it.`);
  }
  return errorResponse(status, domain.code, domain.message, domain.errors);
}
