import { ConnectError } from "@connectrpc/connect";
// The errors module alone: the platform index would load SQLite and the rest of the server side.
import { ERROR_CODE_HEADER, ERROR_FIELDS_HEADER } from "@junction/platform/errors";

/** A field the server refused, as the REST error body's `errors` lists it. */
export interface JunctionFieldError {
  location?: string;
  path: string;
  message: string;
}

/** Junction's side of a refused call: the REST API's stable code and field errors, and the Connect code. */
export interface JunctionRpcError {
  /** Stable snake_case code, e.g. `unknown_connection`, `invalid_metadata`, `request_too_large`. */
  code: string;
  message: string;
  errors: JunctionFieldError[];
  /** The Connect code (Code.NotFound, Code.InvalidArgument...). */
  connectCode: ConnectError["code"];
}

/** Reads Junction's stable code from what a call threw (the `junction-error-code` metadata). */
export function junctionError(err: unknown): JunctionRpcError {
  const ce = ConnectError.from(err);
  let errors: JunctionFieldError[] = [];
  const fields = ce.metadata.get(ERROR_FIELDS_HEADER);
  if (fields) {
    try {
      errors = JSON.parse(decodeURIComponent(fields)) as JunctionFieldError[];
    } catch {
      errors = [];
    }
  }
  return {
    code: ce.metadata.get(ERROR_CODE_HEADER) ?? "unknown",
    message: ce.rawMessage,
    errors,
    connectCode: ce.code,
  };
}
