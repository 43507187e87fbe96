import type { Route } from "../router.ts";
import { runRoutes } from "./scripts/run-routes.ts";
import { scriptRoutes as deployRoutes } from "./scripts/script-routes.ts";
import { syncTriggerRoute } from "./scripts/sync-trigger-route.ts";

/** scripts, runs and /sync/trigger (issue 6): deploy and list scripts, read runs, trigger syncs. */
export function scriptRoutes(): Route[] {
  return [...runRoutes(), ...deployRoutes(), syncTriggerRoute()];
}
