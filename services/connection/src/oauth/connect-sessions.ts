import type { JsonObject } from "@bufbuild/protobuf";
import type {
  CreateConnectSessionRequest,
  IntegrationConfigDefaults,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { invalidArgument, newId, randomToken, sha256Hex } from "@junction/platform";
import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import type { ConnectSessionRecord, IntegrationConfigDefaultsRecord } from "../store/records.ts";

/** Used states and sessions are kept this long after expiry, so that a replay is recognised as one. */
export const REPLAY_MEMORY_MS = 24 * 60 * 60 * 1000;
const TOKEN_PREFIX = "jct_connect_session_";
/** Only these session authorization params reach the upstream; the rest are Junction's to set. */
const PASSED_PARAMS = new Set(["login_hint", "hd", "include_granted_scopes"]);

/** Creates a connect session (Nango's POST /connect/sessions); the token is returned once, its hash kept. */
export async function createConnectSession(
  ctx: ConnectionServiceContext,
  req: CreateConnectSessionRequest,
): Promise<{ token: string; expiresAt: number }> {
  const env = await ctx.environment();
  let organization = checkOrganization(req.organization);
  const allowed = [...new Set(req.allowedIntegrations)];
  const missing: { path: string; message: string }[] = [];
  for (const [i, key] of allowed.entries()) {
    if (!(await ctx.store.getIntegration(env.id, key))) {
      missing.push({ path: `allowed_integrations.${i}`, message: `integration "${key}" does not exist` });
    }
  }
  if (missing.length > 0) {
    throw invalidArgument("invalid_body", `Unknown integration(s) in allowed_integrations.`, missing);
  }
  let reconnect: ConnectSessionRecord["reconnect"] = null;
  let endUserGiven = req.endUser;
  if (req.reconnectConnectionId || req.reconnectProviderConfigKey) {
    const key = req.reconnectProviderConfigKey;
    if (!key || !req.reconnectConnectionId) {
      throw errors.invalidField("connection_id", "and integration_id are both required to reconnect");
    }
    if (!(await ctx.store.getIntegration(env.id, key))) throw errors.unknownProviderConfig(key);
    const existing = await ctx.store.getConnection(env.id, key, req.reconnectConnectionId);
    if (!existing) throw errors.unknownConnection(key, [req.reconnectConnectionId]);
    reconnect = { providerConfigKey: key, connectionId: req.reconnectConnectionId };
    // A reconnect may omit the end user: the connection's own is kept.
    endUserGiven ??= (existing.endUser ?? { id: existing.connectionId }) as JsonObject;
    const org = existing.endUser?.organization;
    if (!organization && org && typeof org === "object") organization = checkOrganization(org as JsonObject);
  }
  const endUser = checkEndUser(endUserGiven);
  const defaults: Record<string, IntegrationConfigDefaultsRecord> = {};
  for (const [key, d] of Object.entries(req.integrationsConfigDefaults)) defaults[key] = checkDefaults(key, d);

  const now = ctx.clock.now();
  const token = `${TOKEN_PREFIX}${randomToken(32)}`;
  const expiresAt = now + ctx.oauth.connectSessionTtlMs;
  await ctx.store.insertConnectSession({
    id: newId("sess", now),
    environmentId: env.id,
    tokenHash: sha256Hex(token),
    endUser,
    organization,
    allowedIntegrations: reconnect ? [reconnect.providerConfigKey] : allowed,
    integrationsConfigDefaults: defaults,
    reconnect,
    createdAt: now,
    expiresAt,
  });
  // House-keeping on a path that is not hot: drop what expired long ago.
  await ctx.store.purgeOAuthFlow(now - REPLAY_MEMORY_MS);
  ctx.logger.info("connect session created", { endUserId: endUser.id, reconnect: reconnect !== null });
  return { token, expiresAt };
}

/** The live session a token names; 401 when unknown or expired. */
export async function resolveConnectSession(
  ctx: ConnectionServiceContext,
  token: string,
): Promise<ConnectSessionRecord> {
  if (!token) throw errors.unknownConnectSession();
  const session = await ctx.store.getConnectSessionByTokenHash(sha256Hex(token));
  if (!session) throw errors.unknownConnectSession();
  if (session.expiresAt <= ctx.clock.now()) throw errors.connectSessionExpired();
  return session;
}

/** Whether the session lets its end user connect this integration. */
export function sessionAllows(session: ConnectSessionRecord, key: string): boolean {
  return session.allowedIntegrations.length === 0 || session.allowedIntegrations.includes(key);
}

/** The session's authorization params that are passed upstream. */
export function passedAuthorizationParams(defaults: IntegrationConfigDefaultsRecord | undefined) {
  return Object.entries(defaults?.authorizationParams ?? {}).filter(([k]) => PASSED_PARAMS.has(k));
}

function checkEndUser(value: JsonObject | undefined): Record<string, unknown> {
  const id = value?.id;
  if (typeof id !== "string" || id.length < 1 || id.length > 255) {
    throw errors.invalidField("end_user.id", "is required: a string of 1-255 characters");
  }
  const out: Record<string, unknown> = { id };
  for (const field of ["email", "display_name"] as const) {
    const v = value?.[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string" || v.length > 255) throw errors.invalidField(`end_user.${field}`, "must be a string");
    out[field] = v;
  }
  return out;
}

function checkOrganization(value: JsonObject | undefined): Record<string, unknown> | null {
  if (!value) return null;
  const id = value.id;
  if (typeof id !== "string" || id.length < 1 || id.length > 255) {
    throw errors.invalidField("organization.id", "is required: a string of 1-255 characters");
  }
  const name = value.display_name;
  return typeof name === "string" ? { id, display_name: name } : { id };
}

function checkDefaults(key: string, d: IntegrationConfigDefaults): IntegrationConfigDefaultsRecord {
  for (const scope of d.userScopes) {
    if (!/^\S+$/.test(scope)) {
      throw errors.invalidField(
        `integrations_config_defaults.${key}.user_scopes`,
        "must not hold empty or spaced scopes",
      );
    }
  }
  return {
    userScopes: [...d.userScopes],
    authorizationParams: { ...d.authorizationParams },
    connectionConfig: (d.connectionConfig ?? {}) as Record<string, unknown>,
  };
}
