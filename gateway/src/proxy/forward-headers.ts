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
  "nango-is-dry-run",
  "x-request-id",
]);

/** Hop-by-hop response headers. Content-Length stays: Bun.serve frames a streamed body itself. */
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

/**
 * The headers sent upstream: the caller's, minus hop-by-hop and Junction's own (the caller's
 * Authorization is its secret key); then the injected ones (the connection's token); then
 * `Nango-Proxy-<Name>` with the prefix stripped, which may override an injected header as in Nango.
 * The body length is set by fetch from the body itself. A plain record: fetch reads it once.
 */
export function upstreamRequestHeaders(
  incoming: Headers,
  injected: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  const listed = connectionListed(incoming);
  const overrides: [string, string][] = [];
  incoming.forEach((value, name) => {
    if (UNSAFE_VALUE.test(value)) throw proxyErrors.badHeaderValue(name);
    if (name.startsWith(NANGO_PROXY_PREFIX)) {
      const target = name.slice(NANGO_PROXY_PREFIX.length);
      if (target === "" || HOP_BY_HOP.has(target)) throw proxyErrors.unforwardable(name);
      overrides.push([target, value]);
    } else if (!HOP_BY_HOP.has(name) && !OWN.has(name) && !listed?.has(name)) {
      out[name] = value;
    }
  });
  for (const name in injected) out[name] = injected[name] as string;
  for (const [name, value] of overrides) out[name] = value;
  return out;
}

/**
 * Makes the upstream's response headers fit for the caller, in place: hop-by-hop ones go. When fetch
 * decompressed the body (`Decompress: true`), its encoding and length no longer describe the bytes
 * sent on, and go too.
 */
export function stripResponseHeaders(headers: Headers, decompressed: boolean): Headers {
  const listed = connectionListed(headers);
  for (const name of HOP_BY_HOP_RESPONSE) headers.delete(name);
  if (listed) for (const name of listed) headers.delete(name);
  if (decompressed) {
    headers.delete("content-encoding");
    headers.delete("content-length");
  }
  return headers;
}

/** Header names listed in `Connection` are hop-by-hop too (RFC 9110 §7.6.1). */
function connectionListed(headers: Headers): Set<string> | undefined {
  const value = headers.get("connection");
  if (!value) return undefined;
  const names = value
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== "" && n !== "close" && n !== "keep-alive");
  return names.length > 0 ? new Set(names) : undefined;
}
