import type { Handler, Route } from "../../router.ts";
import { GatewayAttempt, type RefusalLog } from "./authorization-refusals.ts";

/** `handler`, with what it refuses (a 4xx it throws) recorded as a refused authorization at `route`. */
export function recordingRefusals(log: RefusalLog, route: string, handler: Handler, authMode = ""): Handler {
  return async (ctx) => {
    const attempt = new GatewayAttempt(log, ctx, route, authMode);
    try {
      return await handler(ctx);
    } catch (err) {
      await attempt.refused(err);
      throw err;
    }
  };
}

/**
 * The routes that also answer a connect session token (the Connect UI's reads of its integrations and
 * providers): called with one, what they refuse is an end user's authorization refused, and recorded;
 * called with a secret key, they are the management API, and nothing changes.
 */
export function recordingSessionRefusals(log: RefusalLog, routes: Route[]): Route[] {
  return routes.map((route) => {
    if (!route.acceptsConnectSession) return route;
    const { handler } = route;
    const recording = recordingRefusals(log, `${route.method} ${route.pattern}`, handler);
    return { ...route, handler: (ctx) => (ctx.connectSessionToken ? recording(ctx) : handler(ctx)) };
  });
}
