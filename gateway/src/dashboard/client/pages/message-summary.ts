import { badge, connectionLink } from "../dom.ts";
import type { Integration, Message, Provider } from "../types.ts";

/**
 * The message types the delivery log holds: forwarded notifications, authorization and sync
 * webhooks, channel notices (expiring, removed, renewed...) and disabled endpoints.
 */
export const MESSAGE_TYPES = ["forward", "auth", "sync", "channel", "endpoint_disabled"];

/** A message's connection: a link to it, "unmatched" for a notification no connection matched, else a dash. */
export function messageConnection(m: Message): HTMLElement | string {
  if (m.connection_id) return connectionLink(m.provider_config_key ?? "", m.connection_id);
  return m.type === "forward" ? badge("unmatched") : "—";
}

/** A message body as JSON, or null when it is not an object. */
export function bodyOf(m: Message): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(m.body);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Each integration's channel kind ("subscription"...), from its provider's answer; "" when it has none. */
export function channelKinds(integrations: Integration[], providers: Provider[]): Map<string, string> {
  const byName = new Map(providers.map((p) => [p.name, p.channels?.kind ?? ""]));
  return new Map(integrations.map((i) => [i.unique_key, byName.get(i.provider) ?? ""]));
}

/**
 * What a message is, in a few words: a forwarded notification names its channel kind ("mailbox
 * watch notification"); the others their type and operation ("channel: expiring").
 */
export function messageSummary(m: Message, kinds: ReadonlyMap<string, string>): string {
  if (m.type === "forward") {
    const kind = kinds.get(m.provider_config_key ?? "");
    return kind ? `${kind} notification` : "notification";
  }
  const operation = bodyOf(m)?.operation;
  return typeof operation === "string" && operation ? `${m.type}: ${operation}` : m.type;
}
