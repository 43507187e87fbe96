import type { AuthSocketRelay } from "../auth-socket/auth-socket-relay.ts";
import type { Route } from "../router.ts";
import type { RefusalLog } from "./oauth/authorization-refusals.ts";
import { authorizationRoutes } from "./oauth/authorization-routes.ts";
import { connectFormRoutes } from "./oauth/connect-form-routes.ts";
import { connectSessionRoutes } from "./oauth/connect-session-routes.ts";
import { testModeRoutes } from "./oauth/test-mode-routes.ts";

/**
 * The OAuth flow (spec: Authentication 2, 4-8): connect sessions (/connect/sessions), the browser's
 * /connect page, /oauth/connect/{integration}, /oauth/callback, and per-integration test mode and
 * consent guidance. An authorization started by the frontend SDK also ends with a message on its WebSocket.
 * What these routes refuse before the connection service has the attempt is recorded in the operations log.
 */
export function oauthRoutes(relay: AuthSocketRelay, refusals: RefusalLog, websocketsPath = "/"): Route[] {
  return [
    ...connectSessionRoutes(websocketsPath, refusals),
    ...connectFormRoutes(relay, refusals),
    ...authorizationRoutes(relay, refusals),
    ...testModeRoutes(),
  ];
}
