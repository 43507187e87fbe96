import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { fromConnectError, JunctionError, toConnectError } from "./errors.ts";
import type { Logger } from "./logger.ts";
import type { MetricsRegistry } from "./metrics.ts";

/**
 * The one error boundary of a service: domain errors keep their stable code, an unknown error
 * becomes Internal with its cause logged and never sent.
 */
export function errorBoundary(logger: Logger, metrics?: MetricsRegistry): Interceptor {
  // An unknown error is a store that failed or a bug: the one count an operator pages on per service.
  const internal = metrics?.counter(
    "junction_rpc_internal_errors_total",
    "RPCs that failed with an unknown error (a store that failed, a bug), by service and method.",
    ["service", "rpc"],
  );
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      if (err instanceof JunctionError) throw toConnectError(err);
      if (err instanceof ConnectError) throw err;
      logger.error("unhandled error in RPC", { rpc: req.method.name, service: req.service.typeName, cause: err });
      internal?.inc(req.service.typeName, req.method.name);
      throw new ConnectError("internal error", Code.Internal);
    }
  };
}

/** One item's error in a batch call's answer: what the single call would have failed with. */
export interface ItemError {
  /** The Connect code. */
  status: number;
  /** The stable code (snake_case). */
  code: string;
  message: string;
}

/**
 * The batch form of the error boundary, for one item: a domain error keeps its stable code and
 * message, an unknown one becomes Internal with its cause logged and never sent.
 */
export function toItemError(err: unknown, logger: Logger, rpc: string): ItemError {
  if (err instanceof JunctionError) return { status: err.status, code: err.code, message: err.message };
  if (err instanceof ConnectError) {
    const known = fromConnectError(err);
    return { status: known.status, code: known.code, message: known.message };
  }
  logger.error("unhandled error in RPC", { rpc, cause: err });
  return { status: Code.Internal, code: "internal_error", message: "internal error" };
}

/** The error a caller throws for an item's error: the same as the single call's. */
export function fromItemError(item: ItemError): ConnectError {
  return toConnectError(new JunctionError(item.code, item.message, item.status as Code));
}
