/**
 * Headers as `Headers#toJSON()` gives them, read once per request: lower-case names, repeated headers
 * joined with ", ", except `set-cookie`, a list.
 */
export type HeaderRecord = Readonly<Record<string, string | string[]>>;

/** `headers` as a HeaderRecord (one native call, rather than one per header read). */
export function headerRecord(headers: Headers | HeaderRecord): HeaderRecord {
  return headers instanceof Headers ? (headers.toJSON() as HeaderRecord) : headers;
}
