import type { Route } from "../router.ts";

/** /proxy/{upstream path}, streamed (proxy issue). */
export function proxyRoutes(): Route[] {
  return [];
}
