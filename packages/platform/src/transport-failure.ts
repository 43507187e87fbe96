import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { ERROR_CODE_HEADER } from "./errors.ts";

/** The codes connect-node gives a call whose connection failed (reset, refused, stream cancelled). */
const TRANSPORT_CODES = new Set([Code.Canceled, Code.Aborted, Code.Unknown, Code.Internal, Code.Unavailable]);

/**
 * A call to another process that failed in transport becomes Unavailable (`service_unavailable`, the
 * gateway's 503): the peer may answer a retry. connect-node reports a reset connection as Aborted
 * ("read ECONNRESET"), a peer killed mid-call as Canceled, a refused one as Unavailable; Aborted and
 * Canceled would reach an HTTP caller as 409 and 499, which no client retries. A failure is the
 * transport's when no answer came: an error the peer sent carries its response headers. A deadline
 * keeps DeadlineExceeded (504), and a call the caller cancelled keeps its code.
 */
export function transportFailures(): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      throw req.signal.aborted ? err : asUnavailable(err, req.service.typeName);
    }
  };
}

/** The error to throw for `err`: itself, unless it is a transport failure (see transportFailures). */
export function asUnavailable(err: unknown, service: string): unknown {
  if (!(err instanceof ConnectError) || !TRANSPORT_CODES.has(err.code)) return err;
  if (err.metadata.has("content-type") || err.metadata.has(ERROR_CODE_HEADER)) return err;
  const metadata = new Headers({ [ERROR_CODE_HEADER]: "service_unavailable" });
  // The transport's own words ("read ECONNRESET") stay in the cause, for the logs, never in the answer.
  return new ConnectError(
    `A Junction service could not be reached (${service.split(".").pop()}); retry.`,
    Code.Unavailable,
    metadata,
    undefined,
    err,
  );
}
