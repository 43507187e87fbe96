import { proxyErrors } from "./proxy-errors.ts";

/**
 * The upstream URL: the base URL (without its trailing slashes) followed by the path and query as
 * they arrived, without re-encoding. Verifies, as the URL parser that fetch() applies will read it,
 * that the result keeps the base's origin and path prefix: whatever passed the path checks cannot
 * reach another host or a path outside the upstream base.
 */
export function upstreamUrl(baseUrl: string, path: string, query: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  const target = `${base}${path}${query}`;
  const parsedBase = new URL(base);
  const parsed = new URL(target);
  const basePath = parsedBase.pathname === "/" ? "" : parsedBase.pathname;
  if (parsed.origin !== parsedBase.origin || !parsed.pathname.startsWith(`${basePath}/`)) {
    throw proxyErrors.escaped();
  }
  return target;
}
