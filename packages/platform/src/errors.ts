import { Code, ConnectError } from "@connectrpc/connect";

/** One problem with one field of a request, for the `errors` array of the error body. */
export interface FieldError {
  path: string;
  message: string;
  /** Where in the request the bad input was, when the gateway knows it. */
  location?: InputLocation;
}

/** The part of an HTTP request a field comes from. */
export type InputLocation = "query" | "body" | "header" | "path";

/**
 * The one error family of Junction. `code` is the stable snake_case code that reaches the public
 * error body; `status` is the Connect code that decides the HTTP status at the gateway.
 */
export class JunctionError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: Code,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
    this.name = "JunctionError";
  }
}

export const invalidArgument = (code: string, message: string, errors: FieldError[] = []) =>
  new JunctionError(code, message, Code.InvalidArgument, errors);
export const notFound = (code: string, message: string) => new JunctionError(code, message, Code.NotFound);
export const alreadyExists = (code: string, message: string) => new JunctionError(code, message, Code.AlreadyExists);
export const failedPrecondition = (code: string, message: string) =>
  new JunctionError(code, message, Code.FailedPrecondition);
export const unauthenticated = (code: string, message: string) =>
  new JunctionError(code, message, Code.Unauthenticated);

/** Header names that carry the stable code across a Connect hop. */
export const ERROR_CODE_HEADER = "junction-error-code";
export const ERROR_FIELDS_HEADER = "junction-error-fields";

/** Turns a domain error into a ConnectError that keeps its stable code across the wire. */
export function toConnectError(err: JunctionError): ConnectError {
  const metadata = new Headers({ [ERROR_CODE_HEADER]: err.code });
  if (err.errors.length > 0) metadata.set(ERROR_FIELDS_HEADER, encodeURIComponent(JSON.stringify(err.errors)));
  return new ConnectError(err.message, err.status, metadata);
}

/** Recovers the domain error from anything a Connect client threw. Unknown errors become internal. */
export function fromConnectError(err: unknown): JunctionError {
  if (err instanceof JunctionError) return err;
  const ce = ConnectError.from(err);
  const code = ce.metadata.get(ERROR_CODE_HEADER) ?? defaultCodeName(ce.code);
  const rawFields = ce.metadata.get(ERROR_FIELDS_HEADER);
  let fields: FieldError[] = [];
  if (rawFields) {
    try {
      fields = JSON.parse(decodeURIComponent(rawFields)) as FieldError[];
    } catch {
      fields = [];
    }
  }
  return new JunctionError(code, ce.rawMessage, ce.code, fields);
}

function defaultCodeName(code: Code): string {
  switch (code) {
    case Code.InvalidArgument:
      return "invalid_request";
    case Code.NotFound:
      return "not_found";
    case Code.AlreadyExists:
      return "already_exists";
    case Code.Unauthenticated:
      return "unauthenticated";
    case Code.PermissionDenied:
      return "forbidden";
    case Code.FailedPrecondition:
      return "failed_precondition";
    case Code.ResourceExhausted:
      return "rate_limited";
    case Code.Unavailable:
      return "service_unavailable";
    case Code.DeadlineExceeded:
      return "timeout";
    case Code.Unimplemented:
      return "not_implemented";
    default:
      return "internal_error";
  }
}
