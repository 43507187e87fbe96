import { notFound } from "@junction/platform";
import type { RouteContext, Router } from "../router.ts";
import type { DashboardAuth } from "./dashboard-auth.ts";

/**
 * The REST resources the dashboard's pages may reach through /dashboard/api/*. Not the proxy (the
 * dashboard never calls upstream APIs in a user's name), not the public browser and webhook routes.
 * Secret keys are: only a full-access key opens the dashboard (a key limited to scopes, `environment:*`
 * aside, is refused at login), so every session may do what that key may do on /secret-keys, except
 * revoke the key it runs on. Actions are (a tool's run button: POST /action/trigger), recorded as
 * the dashboard's runs with the session's key name.
 */
const ALLOWED_RESOURCES = new Set([
  "action",
  "providers",
  "integrations",
  "connection",
  "connections",
  "connect",
  "webhook-messages",
  "webhook-settings",
  "channels",
  "scripts",
  "script-runs",
  "sync",
  "overview",
  "secret-keys",
  "records",
  "logs",
]);

/**
 * /dashboard/api/{rest path}: the same REST handlers, for a dashboard session instead of a secret key.
 * The REST API itself stays Bearer-only; the session cookie (Path=/dashboard) never reaches it.
 */
export function dashboardApiHandler(auth: DashboardAuth, router: () => Router) {
  return async (ctx: RouteContext): Promise<Response> => {
    const session = await auth.require(ctx);
    const rest = ctx.params["*"] ?? "";
    const resource = rest.split("/")[0] ?? "";
    const path = `/${rest}`;
    if (!ALLOWED_RESOURCES.has(resource)) throw unknownPath(ctx.req.method, path);
    const found = router().match(ctx.req.method, path);
    if ("allowed" in found || found.route.auth === false) throw unknownPath(ctx.req.method, path);
    const url = new URL(ctx.url);
    url.pathname = path;
    return found.route.handler({
      ...ctx,
      url,
      params: found.params,
      environmentId: session.environmentId,
      dashboard: true,
      sessionKeyId: session.keyId,
      secretKey: { id: session.keyId, name: session.keyName },
    });
  };
}

function unknownPath(method: string, path: string) {
  return notFound("not_found", `The dashboard API has no ${method} ${path}.`);
}
