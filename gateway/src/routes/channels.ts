import type { Route } from "../router.ts";

/** the channel registry and rollback (scripts issue). */
export function channelRoutes(): Route[] {
  return [];
}
