import { JunctionError } from "@junction/platform";
import { Code } from "@connectrpc/connect";

/**
 * The scopes a secret key can be limited to: Nango's names (its API_KEY_SCOPES) for what Nango has,
 * `environment:webhooks` and `environment:channels` for Junction's own routes. `X:*` grants every
 * scope under `X:`; `environment:*` is full access (what a key without scopes has).
 */
export const API_KEY_SCOPES = [
  "environment:*",
  "environment:integrations:*",
  "environment:integrations:list",
  "environment:integrations:list_functions",
  "environment:integrations:read",
  "environment:integrations:create",
  "environment:integrations:update",
  "environment:integrations:delete",
  "environment:connections:*",
  "environment:connections:list",
  "environment:connections:read",
  "environment:connections:create",
  "environment:connections:update",
  "environment:connections:delete",
  "environment:connect_sessions:write",
  "environment:syncs:*",
  "environment:syncs:read",
  "environment:syncs:execute",
  "environment:syncs:update",
  "environment:functions:*",
  "environment:functions:list",
  "environment:functions:read",
  "environment:functions:delete",
  "environment:functions:invocations",
  "environment:deploy",
  "environment:records:*",
  "environment:records:read",
  "environment:logs:read",
  "environment:actions:*",
  "environment:actions:execute",
  "environment:proxy",
  "environment:webhook_signing_key:rotate",
  "environment:webhooks",
  "environment:channels",
  "environment:mcp",
] as const;

export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Full access: the scope of routes not meant for a limited key (secret keys, RPC). */
export const ADMIN_SCOPE: ApiKeyScope = "environment:*";

/** Whether a key with `granted` scopes (none: full access) may use a route needing `needed`. */
export function allows(granted: readonly string[], needed: ApiKeyScope): boolean {
  if (granted.length === 0) return true;
  for (const scope of granted) {
    if (scope === needed) return true;
    if (scope.endsWith(":*") && needed.startsWith(scope.slice(0, -1))) return true;
  }
  return false;
}

/** 403 naming the scope the key lacks. */
export function insufficientScope(needed: ApiKeyScope): JunctionError {
  return new JunctionError(
    "insufficient_scope",
    `This secret key is not allowed here: it needs the scope "${needed}".`,
    Code.PermissionDenied,
    [{ location: "header", path: "authorization", message: `needs the scope ${needed}` }],
  );
}
