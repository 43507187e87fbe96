import type { Route } from "../router.ts";

/** scripts, runs and /sync/trigger (scripts issue). */
export function scriptRoutes(): Route[] {
  return [];
}
