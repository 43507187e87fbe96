import { createHash } from "node:crypto";

/**
 * The forwarded message (spec: Forwarded webhook message): `{from, providerConfigKey, type:
 * "forward", payload, connectionId?}`, `payload` being the notification's headers as received, or
 * what its provider's adapter made of it (a mail provider's decoded message).
 *
 * The body's bytes are what `webhook-signature` and `x-nango-hmac-sha256` sign, so they are fixed
 * here: JSON with no whitespace and every object's keys in code-point order (Nango's
 * `stringifyStable`), UTF-8. For example:
 *
 *   {"connectionId":"c1","from":"acme-calendar","payload":{"x-provider-channel-id":"ch1",...},
 *    "providerConfigKey":"acme-calendar","type":"forward"}
 */
export interface ForwardMessage {
  /** Provider name of the integration (the template's name). */
  from: string;
  providerConfigKey: string;
  /** Headers as received, names lower-cased; or the adapter's payload. */
  payload: Readonly<Record<string, unknown>>;
  /** Omitted when no connection matched (spec: matching rule 4). */
  connectionId?: string;
}

/** The exact body of a forwarded message. */
export function forwardBody(message: ForwardMessage): Uint8Array {
  const body: Record<string, unknown> = {
    from: message.from,
    providerConfigKey: message.providerConfigKey,
    type: "forward",
    payload: message.payload,
  };
  if (message.connectionId) body.connectionId = message.connectionId;
  return new TextEncoder().encode(stableStringify(body));
}

/** JSON with object keys sorted by code point at every level and no whitespace. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : stableStringify(v))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
}

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const ID_RE = /^[a-z]+_([0-9a-hjkmnp-tv-z]{10})[0-9a-hjkmnp-tv-z]{16}$/;

/**
 * A message id derived from what the message is for: the same inputs always give the same
 * `msg_` id, so a notification processed twice (a crash before its job was acked) yields the same
 * messages and the same `webhook-id`, never a second one. The time part is the source id's, so
 * derived ids sort with the others by creation.
 */
export function derivedMessageId(sourceId: string, ...parts: string[]): string {
  const m = ID_RE.exec(sourceId);
  if (!m) throw new Error(`derivedMessageId needs a prefixed id as its source, got ${JSON.stringify(sourceId)}`);
  const digest = createHash("sha256")
    .update([sourceId, ...parts].join("\n"))
    .digest();
  let rand = "";
  for (let i = 0; i < 16; i++) rand += ALPHABET[(digest[i] as number) & 31];
  return `msg_${m[1]}${rand}`;
}
