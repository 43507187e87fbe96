/** Bodies up to this size with a known length are read first, so a retry can send them again. */
export const REPLAYABLE_BODY_LIMIT = 1024 * 1024;

/** The body to send upstream: bytes that can be sent again, or a stream that can be sent once. */
export type OutgoingBody =
  | { kind: "none" }
  | { kind: "bytes"; bytes: Uint8Array }
  | { kind: "stream"; stream: ReadableStream<Uint8Array>; length: string | null };

/**
 * Takes the caller's body. Small bodies of known length are read into memory (retries and the
 * refresh-and-retry after a 401 need them again); anything larger or of unknown length streams
 * straight through with bounded memory, and such a request is attempted once. GET and HEAD carry no
 * body upstream.
 */
export async function takeOutgoingBody(req: Request): Promise<OutgoingBody> {
  if (hasNoBody(req.method) || req.body === null) return NO_BODY;
  const declared = req.headers.get("content-length");
  const length = declared !== null && /^\d{1,15}$/.test(declared) ? Number(declared) : null;
  if (length === 0) return NO_BODY;
  if (length !== null && length <= REPLAYABLE_BODY_LIMIT) return { kind: "bytes", bytes: await req.bytes() };
  return { kind: "stream", stream: req.body, length: length === null ? null : String(length) };
}

export const NO_BODY: OutgoingBody = { kind: "none" };

/**
 * A body already in memory (a script's), sent as takeOutgoingBody would send it from a request of
 * that length: none when empty, bytes up to REPLAYABLE_BODY_LIMIT, a stream sent once above it.
 */
export function bodyOfBytes(bytes: Uint8Array): OutgoingBody {
  const length = bytes.byteLength;
  if (length === 0) return NO_BODY;
  if (length <= REPLAYABLE_BODY_LIMIT) return { kind: "bytes", bytes };
  return { kind: "stream", stream: new Blob([bytes as Uint8Array<ArrayBuffer>]).stream(), length: String(length) };
}

/** GET and HEAD send no body upstream (checked without touching `req.body`, which would make a stream). */
export function hasNoBody(method: string): boolean {
  return method === "GET" || method === "HEAD";
}

/** Whether the body can be sent again. */
export function isReplayable(body: OutgoingBody): boolean {
  return body.kind !== "stream";
}
