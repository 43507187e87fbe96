import { type HeaderRecord, headerRecord } from "./header-record.ts";
import { proxyErrors } from "./proxy-errors.ts";

/** Hop-by-hop headers (RFC 9110 §7.6.1) and framing: about one connection, never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  "expect",
]);

/** Junction's own request headers: read by the proxy, never sent upstream. */
const OWN = new Set([
  "authorization",
  "provider-config-key",
  "connection-id",
  "retries",
  "retry-on",
  "base-url-override",
  "decompress",
  "nango-activity-log-id",
  "nango-is-sync",
  "nango-is-script",
  "nango-is-dry-run",
  // @nangohq/node's proxy option; Junction's proxy never follows redirects (it answers them as they come).
  "forward-headers-on-redirect",
  "x-request-id",
]);

/**
 * Hop-by-hop response headers. Content-Length stays: Bun.serve frames a streamed body itself.
 * `connection` first: the names it lists are read before it is deleted.
 */
const HOP_BY_HOP_RESPONSE = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

const NANGO_PROXY_PREFIX = "nango-proxy-";
const UNSAFE_VALUE = /[\r\n\0]/;

/** Response headers `stripResponseHeaders` removes after a decompression. */
const DECOMPRESSED = ["content-encoding", "content-length"];

/**
 * The headers sent upstream: the caller's, minus hop-by-hop and Junction's own (the caller's
 * Authorization is its secret key); then the injected ones (the connection's token); then
 * `Nango-Proxy-<Name>` with the prefix stripped, which may override an injected header as in Nango.
 * The body length is set by fetch from the body itself. A plain record: fetch reads it once.
 * The caller's headers are read as a HeaderRecord, not one callback per header.
 */
export function upstreamRequestHeaders(
  incoming: Headers | HeaderRecord,
  injected: Readonly<Record<string, string>>,
): Record<string, string> {
  const all = headerRecord(incoming);
  const out: Record<string, string> = {};
  const listed = connectionListedIn(all.connection);
  let overrides: [string, string][] | undefined;
  for (const name in all) {
    const raw = all[name] as string | string[];
    // Only set-cookie comes as a list (one entry per header line); the last one is kept, as before.
    if (typeof raw === "string") overrides = forward(out, overrides, listed, name, raw);
    else for (const value of raw) overrides = forward(out, overrides, listed, name, value);
  }
  for (const name in injected) out[name] = injected[name] as string;
  if (overrides) for (const [name, value] of overrides) out[name] = value;
  return out;
}

/** Adds one caller header to `out`, or to the overrides (returned) when it is a `Nango-Proxy-*` one. */
function forward(
  out: Record<string, string>,
  overrides: [string, string][] | undefined,
  listed: Set<string> | undefined,
  name: string,
  value: string,
): [string, string][] | undefined {
  if (UNSAFE_VALUE.test(value)) throw proxyErrors.badHeaderValue(name);
  if (name.startsWith(NANGO_PROXY_PREFIX)) {
    const target = name.slice(NANGO_PROXY_PREFIX.length);
    if (target === "" || HOP_BY_HOP.has(target)) throw proxyErrors.unforwardable(name);
    const list = overrides ?? [];
    list.push([target, value]);
    return list;
  }
  if (!HOP_BY_HOP.has(name) && !OWN.has(name) && !listed?.has(name)) out[name] = value;
  return overrides;
}

/**
 * Makes the upstream's response headers fit for the caller, in place: hop-by-hop ones go. When fetch
 * decompressed the body (`Decompress: true`), its encoding and length no longer describe the bytes
 * sent on, and go too. Presence is tested with `has` and only present headers are deleted: on fetch's
 * response, `delete` and `toJSON` cost measurably more than `has`, and a response seldom carries any.
 */
export function stripResponseHeaders(headers: Headers, decompressed: boolean): Headers {
  let listed: Set<string> | undefined;
  for (const name of HOP_BY_HOP_RESPONSE) {
    if (!headers.has(name)) continue;
    // `Connection` is read only when present (first in the list, so before it is deleted).
    if (name === "connection") listed = connectionListedIn(headers.get(name) ?? undefined);
    headers.delete(name);
  }
  if (listed) for (const name of listed) if (headers.has(name)) headers.delete(name);
  if (decompressed) for (const name of DECOMPRESSED) if (headers.has(name)) headers.delete(name);
  return headers;
}

/** Header names listed in `Connection` are hop-by-hop too (RFC 9110 §7.6.1). */
function connectionListedIn(value: string | string[] | undefined): Set<string> | undefined {
  if (!value) return undefined;
  const names = String(value)
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== "" && n !== "close" && n !== "keep-alive");
  return names.length > 0 ? new Set(names) : undefined;
}
