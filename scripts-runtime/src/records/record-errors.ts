/**
 * A record write or read refused for what it was given: a stable code (the REST API's and the
 * script's `err.code`), a message naming the record and field, and the HTTP-like status.
 */
export class RecordsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = "RecordsError";
  }
}
