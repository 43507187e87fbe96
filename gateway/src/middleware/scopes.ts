import { JunctionError } from "@junction/platform";
import { Code } from "@connectrpc/connect";
import { API_KEY_SCOPES } from "./api-key-scopes.ts";

export { API_KEY_SCOPES };

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
