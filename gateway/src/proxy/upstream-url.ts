import { proxyErrors } from "./proxy-errors.ts";

/** A base URL, parsed once (the resolve cache keeps it with its answer). */
export interface UpstreamBase {
  /** The base without trailing slashes. */
  href: string;
  origin: string;
  /** The base's path followed by one slash: every upstream path starts with it. */
  pathPrefix: string;
}

export function parseBase(baseUrl: string): UpstreamBase {
  const href = baseUrl.replace(/\/+$/, "");
  const url = new URL(href);
  return { href, origin: url.origin, pathPrefix: `${url.pathname === "/" ? "" : url.pathname}/` };
}

/**
 * The upstream URL: the base URL (without its trailing slashes) followed by the path and query as
 * they arrived, without re-encoding. Verifies, as the URL parser that fetch() applies will read it,
 * that the result keeps the base's origin and path prefix: whatever passed the path checks cannot
 * reach another host or a path outside the upstream base.
 */
export function upstreamUrl(base: UpstreamBase, path: string, query: string): string {
  const target = `${base.href}${path}${query}`;
  const parsed = new URL(target);
  if (parsed.origin !== base.origin || !parsed.pathname.startsWith(base.pathPrefix)) throw proxyErrors.escaped();
  return target;
}
