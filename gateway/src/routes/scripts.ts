import type { Route } from "../router.ts";
import { actionRoutes } from "./scripts/action-routes.ts";
import { nangoDeployRoutes } from "./scripts/nango-deploy-routes.ts";
import { runRoutes } from "./scripts/run-routes.ts";
import { scriptsConfigRoute } from "./scripts/scripts-config-route.ts";
import { scriptRoutes as deployRoutes } from "./scripts/script-routes.ts";
import { syncControlRoutes } from "./scripts/sync-control-routes.ts";
import { syncTriggerRoute } from "./scripts/sync-trigger-route.ts";

/** scripts, runs, /sync/* and /action: deploy and list scripts, read runs, trigger and control syncs, run actions. */
export function scriptRoutes(): Route[] {
  return [
    scriptsConfigRoute(),
    ...runRoutes(),
    ...deployRoutes(),
    ...nangoDeployRoutes(),
    syncTriggerRoute(),
    ...syncControlRoutes(),
    ...actionRoutes(),
  ];
}
