// No imports: the dashboard's page script offers these scopes and bundles this file.

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
