import { proxyErrors } from "./proxy-errors.ts";

/** A base URL, parsed once (the resolve cache keeps it with its answer). */
export interface UpstreamBase {
  /** The base without trailing slashes. */
  href: string;
  origin: string;
  /** The base's path followed by one slash: every upstream path starts with it. */
  pathPrefix: string;
  /**
   * `href` is written as the URL parser writes it, without user info, query or fragment: a plain path
   * and query appended to it keep its origin and path prefix, which needs no parsing to know.
   */
  canonical: boolean;
}

export function parseBase(baseUrl: string): UpstreamBase {
  const href = baseUrl.replace(/\/+$/, "");
  const url = new URL(href);
  const canonical =
    (url.href === href || url.href === `${href}/`) &&
    url.username === "" &&
    url.password === "" &&
    !href.includes("?") &&
    !href.includes("#");
  return { href, origin: url.origin, pathPrefix: `${url.pathname === "/" ? "" : url.pathname}/`, canonical };
}

/**
 * A path the URL parser keeps as it is: characters it never encodes or reinterprets (no backslash,
 * quote, space, `#`, `?`, `^`, `|`, braces, non-ASCII), and no dot segment in any spelling (`/.` and
 * `%2e` are left to the parser).
 */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@%/]*$/;
/** A query the URL parser keeps as it is (no quote, apostrophe, space, `#` or angle bracket). */
const PLAIN_QUERY = /^(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@%/?]*)?$/;

/**
 * The upstream URL: the base URL (without its trailing slashes) followed by the path and query as
 * they arrived, without re-encoding. Verifies, as the URL parser that fetch() applies will read it,
 * that the result keeps the base's origin and path prefix: whatever passed the path checks cannot
 * reach another host or a path outside the upstream base.
 */
export function upstreamUrl(base: UpstreamBase, path: string, query: string): string {
  const target = `${base.href}${path}${query}`;
  if (
    base.canonical &&
    PLAIN_PATH.test(path) &&
    PLAIN_QUERY.test(query) &&
    !path.includes("/.") &&
    !path.includes("%2e") &&
    !path.includes("%2E")
  ) {
    return target;
  }
  const parsed = new URL(target);
  if (parsed.origin !== base.origin || !parsed.pathname.startsWith(base.pathPrefix)) throw proxyErrors.escaped();
  return target;
}
