/**
 * An upstream notification's headers: the limits on them, and (for notifications recorded before
 * receipt read them) the header roles, read as the provider adapters' `read` does (`@junction/providers`).
 */
import {
  type HeaderNames,
  type HeaderRole,
  headerNames,
  headerValue,
  messageNumberOf,
  webhookHeaderNames,
} from "@junction/providers";

export { type HeaderNames, type HeaderRole, headerNames, headerValue, messageNumberOf } from "@junction/providers";

/** The most headers a notification may carry; more is refused (real ones carry about ten). */
export const MAX_HEADERS = 100;
/** The most bytes of header names and values together. */
export const MAX_HEADER_BYTES = 32 * 1024;

/**
 * Header names that carry credentials: never recorded, forwarded or logged. Upstream notifications
 * do not send them; one that arrives is a caller's mistake (a Junction secret key sent to the
 * public webhook URL, say) and must not end up in the customer's delivery log.
 */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(["authorization", "proxy-authorization", "cookie"]);

/** Why a header set is refused, or null when it is acceptable. Names must already be lower-case. */
export function headerProblem(headers: Readonly<Record<string, string>>): string | null {
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS) return `carries ${entries.length} headers; at most ${MAX_HEADERS} are accepted`;
  let bytes = 0;
  for (const [name, value] of entries) {
    if (name === "" || name !== name.toLowerCase()) return "has a header name that is empty or not lower-case";
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
  }
  if (bytes > MAX_HEADER_BYTES) return `carries ${bytes} bytes of headers; at most ${MAX_HEADER_BYTES} are accepted`;
  return null;
}

/** What Junction reads from a notification's headers; read once, at receipt, and carried to the worker. */
export interface NotificationFields {
  channelId: string | undefined;
  messageNumber: number | null;
  resourceUri: string;
  channelToken: string;
}

/** The headers' channel id, message number, resource URI and channel token, by the integration's names. */
export function readNotification(headers: Readonly<Record<string, string>>, names: HeaderNames): NotificationFields {
  return {
    channelId: headerValue(headers, names, "channelId"),
    messageNumber: messageNumberOf(headers, names),
    resourceUri: headerValue(headers, names, "resourceUri") ?? "",
    channelToken: headerValue(headers, names, "channelToken") ?? "",
  };
}

let catalogueNames: HeaderNames | undefined;

/**
 * Every catalogue adapter's header names for each role, then the spec's: how the worker reads a
 * notification recorded by a version whose receipt did not read its headers (it does not know the
 * provider then). Worked out once.
 */
export function catalogueHeaderNames(): HeaderNames {
  if (catalogueNames) return catalogueNames;
  const spec = headerNames(undefined);
  const names = {} as HeaderNames;
  for (const role of Object.keys(spec) as HeaderRole[]) {
    names[role] = [...new Set([...webhookHeaderNames(role).map((n) => n.toLowerCase()), ...spec[role]])];
  }
  catalogueNames = names;
  return names;
}
