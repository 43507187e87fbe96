import type { Route } from "../router.ts";
import { actionRoutes } from "./scripts/action-routes.ts";
import { runRoutes } from "./scripts/run-routes.ts";
import { scriptRoutes as deployRoutes } from "./scripts/script-routes.ts";
import { syncTriggerRoute } from "./scripts/sync-trigger-route.ts";

/** scripts, runs, /sync/trigger and /action (issue 6, issue 20): deploy, read runs, trigger syncs and actions. */
export function scriptRoutes(): Route[] {
  return [...runRoutes(), ...deployRoutes(), syncTriggerRoute(), ...actionRoutes()];
}
