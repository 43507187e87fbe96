import { isPlainTarget } from "./request-target.ts";
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
 * The upstream URL: the base URL (without its trailing slashes) followed by the path and query as
 * they arrived, without re-encoding. Verifies, as the URL parser that fetch() applies will read it,
 * that the result keeps the base's origin and path prefix: whatever passed the path checks cannot
 * reach another host or a path outside the upstream base.
 *
 * `plain`: the caller already knows `path` and `query` pass `isPlainTarget` (they are the end of a
 * request target the gateway found plain: the same characters, no dot segment), so it is not tested
 * again.
 */
export function upstreamUrl(base: UpstreamBase, path: string, query: string, plain = false): string {
  const target = `${base.href}${path}${query}`;
  // A canonical base followed by a plain path and query: the parser would keep every character.
  if (base.canonical && (plain || isPlainTarget(`${path}${query}`))) return target;
  const parsed = new URL(target);
  if (parsed.origin !== base.origin || !parsed.pathname.startsWith(base.pathPrefix)) throw proxyErrors.escaped();
  return target;
}

/** The caller's query (as it arrived: "" or "?...") with the credentials' encoded parameters appended. */
export function withAuthQuery(query: string, authQuery: string | undefined): string {
  if (!authQuery) return query;
  return query === "" || query === "?" ? `?${authQuery}` : `${query}&${authQuery}`;
}
