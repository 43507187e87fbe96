import type { Route } from "../router.ts";

/** the delivery log and replays (notifications issue). */
export function deliveryRoutes(): Route[] {
  return [];
}
