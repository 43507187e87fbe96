import { documentationExample } from "@junction/providers";
import { invalidArgument } from "@junction/platform";

const PREFIX = "/proxy";
/** A URL scheme at the start of a segment: `http:`, `https:`, `javascript:`... */
const SCHEME_RE = /^[a-z][a-z0-9+.-]*:/i;
/** Decoding stops after this many rounds: enough for any double or triple encoding. */
const DECODE_ROUNDS = 3;

/**
 * The upstream path of a /proxy request, exactly as it arrived (spec: Proxy rules 2–3: the path after
 * /proxy and the query string, `url.search`, are forwarded unchanged, so `%40` stays `%40`).
 *
 * Refuses, with 400 `invalid_proxy_path`, anything that could make the upstream URL leave the
 * integration's base: dot segments in any spelling (`..`, `%2e%2e`, `%252e%252e`, `..%2f`), backslashes
 * (raw or `%5c`), empty segments (`//host`), an absolute URL, `@` where a URL's authority would be,
 * and encoded control characters.
 *
 * Bun.serve (1.4.5) runs the request target through the WHATWG URL parser before a handler sees it:
 * `..`, `.`, their `%2e` spellings and `\` are already resolved in `req.url`, so those checks can only
 * fire for targets the parser leaves alone (`..%2f`, `%5c`, double encoding) or under a server that
 * passes the raw target. What the parser resolved can no longer leave the base: the resolved path is
 * appended to the base URL, and `upstreamUrl` verifies the result stays under it.
 */
export function upstreamPath(url: Pick<URL, "pathname">): string {
  const path = url.pathname.slice(PREFIX.length);
  if (path === "" || path === "/") {
    throw refuse(
      `The upstream path is missing: call /proxy/{upstream path}, e.g. /proxy/${documentationExample.proxyPath}.`,
    );
  }
  assertSafePath(path);
  return path;
}

/**
 * Non-empty segments of letters, digits and `-_~!$&'()*+,;=.`, none starting with a dot: no backslash,
 * `//`, scheme, `@`, percent-encoding or dot segment, so none of the checks below can object.
 */
const SIMPLE_PATH = /^(?:\/[A-Za-z0-9\-_~!$&'()*+,;=][A-Za-z0-9\-_~!$&'()*+,;=.]*)+$/;

/** Throws 400 `invalid_proxy_path` when `path` (starting with `/`) could escape the upstream base. */
export function assertSafePath(path: string): void {
  if (SIMPLE_PATH.test(path)) return;
  if (!path.startsWith("/")) throw refuse("The upstream path must start with a slash.");
  if (path.includes("\\")) throw refuse("Backslashes are not allowed in the upstream path.");
  if (path.includes("//")) throw refuse("Empty path segments (//) are not allowed in the upstream path.");
  const segments = path.slice(1).split("/");
  const first = decodeFully(segments[0] ?? "");
  if (SCHEME_RE.test(first)) throw refuse("An absolute URL is not allowed as the upstream path.");
  if (first.startsWith("/")) throw refuse("A host (//host) is not allowed as the upstream path.");
  if (first.includes("@")) throw refuse("An '@' is not allowed in the first segment of the upstream path.");
  for (const segment of segments) {
    if (!segment.includes("%") && segment !== "." && segment !== "..") continue;
    const decoded = decodeFully(segment);
    if (/[\u0000-\u001f\u007f]/.test(decoded)) throw refuse("Encoded control characters are not allowed in the path.");
    if (decoded.includes("\\")) throw refuse("Backslashes are not allowed in the upstream path.");
    if (decoded.includes("//")) throw refuse("Empty path segments (//) are not allowed in the upstream path.");
    if (decoded.split("/").some((part) => part === "." || part === "..")) {
      throw refuse("Dot segments (.. or .) are not allowed in the upstream path, in any encoding.");
    }
  }
}

/** Percent-decodes repeatedly (double encoding included); malformed sequences are left as they are. */
function decodeFully(segment: string): string {
  let current = segment;
  for (let i = 0; i < DECODE_ROUNDS && current.includes("%"); i++) {
    const next = current.replace(/%[0-9a-f]{2}/gi, (hex) => String.fromCharCode(Number.parseInt(hex.slice(1), 16)));
    if (next === current) break;
    current = next;
  }
  return current;
}

function refuse(message: string) {
  return invalidArgument("invalid_proxy_path", message, [{ location: "path", path: "path", message }]);
}
