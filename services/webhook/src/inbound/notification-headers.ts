/**
 * Reading an upstream notification's headers by role. The provider template names the headers the
 * upstream really sends (the provider adapter's `webhookHeaders`); the spec names them `x-provider-*`
 * (spec: Inbound webhook endpoint). Both are accepted, the template's first.
 */

/** The roles Junction reads; keys of the template's webhook_headers map. */
export type HeaderRole =
  | "channelId"
  | "resourceUri"
  | "messageNumber"
  | "channelToken"
  | "resourceState"
  | "resourceId";

const SPEC_NAMES: Record<HeaderRole, string> = {
  channelId: "x-provider-channel-id",
  resourceUri: "x-provider-resource-uri",
  messageNumber: "x-provider-message-number",
  channelToken: "x-provider-channel-token",
  resourceState: "x-provider-resource-state",
  resourceId: "x-provider-resource-id",
};

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

/** Where each role is looked up, in order, for one integration. */
export type HeaderNames = Record<HeaderRole, string[]>;

/** The names to look each role up by: the template's (lower-cased), then the spec's. */
export function headerNames(templateHeaders: Readonly<Record<string, string>> | undefined): HeaderNames {
  const out = {} as HeaderNames;
  for (const role of Object.keys(SPEC_NAMES) as HeaderRole[]) {
    const fromTemplate = templateHeaders?.[role]?.trim().toLowerCase();
    out[role] = [...new Set([fromTemplate, SPEC_NAMES[role]].filter((n): n is string => Boolean(n)))];
  }
  return out;
}

/** The first non-empty value of a role, trimmed, or undefined. */
export function headerValue(
  headers: Readonly<Record<string, string>>,
  names: HeaderNames,
  role: HeaderRole,
): string | undefined {
  for (const name of names[role]) {
    const value = headers[name];
    if (value !== undefined && value.trim() !== "") return role === "resourceUri" ? value : value.trim();
  }
  return undefined;
}

/** The message number, when the header holds a plain non-negative integer; null otherwise. */
export function messageNumberOf(headers: Readonly<Record<string, string>>, names: HeaderNames): number | null {
  const raw = headerValue(headers, names, "messageNumber");
  if (raw === undefined || !/^\d{1,15}$/.test(raw)) return null;
  return Number(raw);
}

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
