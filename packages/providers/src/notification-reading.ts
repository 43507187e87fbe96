/**
 * Reading an upstream notification's headers by role, the reading of providers that say everything in
 * headers (Google's push channels). The provider template names the headers the upstream really sends
 * (`webhookHeaders`); the spec names them `x-provider-*` (spec: Inbound webhook endpoint). Both are
 * accepted, the template's first.
 */
import type { InboundNotification, NotificationReading } from "./adapter.ts";

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

/** A template's header names by role (`webhookHeaders`, or the connection service's copy of it). */
type TemplateHeaders = Readonly<Partial<Record<HeaderRole, string>>> | null | undefined;

/** Where each role is looked up, in order, for one integration. */
export type HeaderNames = Record<HeaderRole, string[]>;

/** The names to look each role up by: the template's (lower-cased), then the spec's. */
export function headerNames(templateHeaders: TemplateHeaders): HeaderNames {
  const out = {} as HeaderNames;
  for (const role of Object.keys(SPEC_NAMES) as HeaderRole[]) {
    const fromTemplate = templateHeaders?.[role]?.trim().toLowerCase();
    out[role] = [...new Set([fromTemplate, SPEC_NAMES[role]].filter((n): n is string => Boolean(n)))];
  }
  return out;
}

/** The first non-empty value of a role, trimmed (the resource URI kept as sent), or undefined. */
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

/**
 * The reader of a provider whose notifications say everything in headers (`webhookHeaders`' names,
 * then the spec's): always one notification, never a handshake or a refusal; body and query unread.
 */
export function headerNotificationReader(
  templateHeaders: TemplateHeaders,
): (notification: InboundNotification) => NotificationReading {
  const names = headerNames(templateHeaders);
  return ({ headers }) => ({
    kind: "notifications",
    items: [
      {
        channelId: headerValue(headers, names, "channelId"),
        messageNumber: messageNumberOf(headers, names),
        resourceUri: headerValue(headers, names, "resourceUri") ?? "",
        resourceId: headerValue(headers, names, "resourceId") ?? "",
        state: headerValue(headers, names, "resourceState") ?? "",
        token: headerValue(headers, names, "channelToken") ?? "",
      },
    ],
  });
}
