/** The path and query of a request, as `new URL(req.url)` has them. */
export interface RequestTarget {
  pathname: string;
  search: string;
}

/**
 * A path (and query) made only of characters the WHATWG URL parser keeps as they are: letters, digits,
 * `-._~!$&()*+,;=:@%/`, and `?` in the query. No quote, space, backslash, `#`, `^`, `|`, backtick,
 * braces or non-ASCII: those the parser encodes or reads differently.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@%/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@%/?]*)?$/;

/**
 * Whether a path (starting with `/`) and query read the same before and after the URL parser: only
 * characters it keeps (PLAIN_TARGET) and no dot segment in any spelling (`/.`, `%2e`).
 */
export function isPlainTarget(pathAndQuery: string): boolean {
  return (
    PLAIN_TARGET.test(pathAndQuery) &&
    !pathAndQuery.includes("/.") &&
    !pathAndQuery.includes("%2e") &&
    !pathAndQuery.includes("%2E")
  );
}

/** The last origin whose URLs parsed: Bun.serve writes every `req.url` of one listener with the same one. */
let knownOrigin = "";

/**
 * The path and query of `rawUrl` (a `req.url` of Bun.serve) without building a URL object, when the
 * answer is certain to be what `new URL(rawUrl)` gives: the URL starts with an origin that parsed
 * before (and the parser ends an authority at the first `/`), and the rest holds only characters the
 * parser keeps, and no dot segment (`/.` or `%2e` anywhere sends it to the parser). Otherwise undefined:
 * the caller parses the URL.
 */
export function plainRequestTarget(rawUrl: string): RequestTarget | undefined {
  // The gateway reads the target to route the request, then the /proxy route reads it again.
  if (rawUrl === lastUrl) return lastTarget;
  lastTarget = readTarget(rawUrl);
  lastUrl = rawUrl;
  return lastTarget;
}

/**
 * The last URL read and its answer, which depends on the URL alone. A second reading of one request's
 * target costs a string comparison, not slices and an object (docs/benchmarks.md).
 */
let lastUrl = "";
let lastTarget: RequestTarget | undefined;

function readTarget(rawUrl: string): RequestTarget | undefined {
  if (knownOrigin === "" || !rawUrl.startsWith(knownOrigin) || rawUrl.charCodeAt(knownOrigin.length) !== 47) {
    if (!learnOrigin(rawUrl)) return undefined;
  }
  const rest = rawUrl.slice(knownOrigin.length);
  if (!isPlainTarget(rest)) return undefined;
  const q = rest.indexOf("?");
  if (q < 0) return { pathname: rest, search: "" };
  // As URL#search: an empty query reads as "".
  return { pathname: rest.slice(0, q), search: q === rest.length - 1 ? "" : rest.slice(q) };
}

/** Remembers the origin of `rawUrl` when the URL parses and starts with it, exactly, then a `/`. */
function learnOrigin(rawUrl: string): boolean {
  let origin: string;
  try {
    origin = new URL(rawUrl).origin;
  } catch {
    return false;
  }
  if (!/^https?:\/\//.test(origin) || !rawUrl.startsWith(origin) || rawUrl.charCodeAt(origin.length) !== 47) {
    return false;
  }
  knownOrigin = origin;
  return true;
}
