import { integrationOrRefuse, unknownIntegration } from "../handlers/integration-or-refuse.ts";
import type { JsonObject } from "@bufbuild/protobuf";
import type {
  CreateConnectSessionRequest,
  IntegrationConfigDefaults,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { type FieldError, invalidArgument, newId, randomToken, sha256Hex } from "@junction/platform";
import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import type {
  ConnectSessionOverrideRecord,
  ConnectSessionRecord,
  IntegrationConfigDefaultsRecord,
} from "../store/records.ts";
import { sessionTags } from "./session-tags.ts";

/** Used states and sessions are kept this long after expiry, so that a replay is recognised as one. */
export const REPLAY_MEMORY_MS = 24 * 60 * 60 * 1000;
const TOKEN_PREFIX = "jct_connect_session_";
/** Only these session authorization params reach the upstream; the rest are Junction's to set. */
const PASSED_PARAMS = new Set(["login_hint", "hd", "include_granted_scopes"]);

/**
 * Creates a connect session (Nango's POST /connect/sessions and /connect/sessions/reconnect); the token
 * is returned once, its hash kept. Everything is checked before anything is written.
 */
export async function createConnectSession(
  ctx: ConnectionServiceContext,
  req: CreateConnectSessionRequest,
): Promise<{ token: string; expiresAt: number }> {
  const env = await ctx.environment();
  let organization = checkOrganization(req.organization);
  const allowed = [...new Set(req.allowedIntegrations)];
  await refuseUnknownIntegrations(ctx, env.id, req, allowed);
  const target = await reconnectTarget(ctx, env.id, req);
  const reconnect = target?.reconnect ?? null;
  // A reconnect may omit the end user: the connection's own is kept.
  const endUserGiven = req.endUser ?? target?.endUser;
  if (!organization && target?.organization) organization = checkOrganization(target.organization);
  const allowedFinal = reconnect ? [reconnect.providerConfigKey] : allowed;
  // Nango: with top-level tags the end user is optional; a reconnect keeps the connection's.
  const endUser =
    endUserGiven === undefined && (Object.keys(req.tags).length > 0 || reconnect) ? null : checkEndUser(endUserGiven);
  // Tags derive from the end user and organization given here, not from a reconnected connection's:
  // a reconnect without them leaves the connection's tags as they are.
  const tags = sessionTags(
    req.endUser ? endUser : null,
    req.organization ? organization : null,
    req.endUser?.tags,
    req.tags,
  );
  const defaults: Record<string, IntegrationConfigDefaultsRecord> = {};
  for (const [key, d] of Object.entries(req.integrationsConfigDefaults)) defaults[key] = checkDefaults(key, d);
  const overrides = checkOverrides(req.overrides, allowedFinal);

  const now = ctx.clock.now();
  const token = `${TOKEN_PREFIX}${randomToken(32)}`;
  const expiresAt = now + ctx.oauth.connectSessionTtlMs;
  await ctx.store.insertConnectSession({
    id: newId("sess", now),
    environmentId: env.id,
    tokenHash: sha256Hex(token),
    endUser,
    organization,
    allowedIntegrations: allowedFinal,
    integrationsConfigDefaults: defaults,
    overrides,
    tags,
    ...(req.webhookUrlOverride ? { webhookUrlOverride: req.webhookUrlOverride } : {}),
    reconnect,
    createdAt: now,
    expiresAt,
  });
  ctx.logger.info("connect session created", { endUserId: endUser?.id ?? null, reconnect: reconnect !== null });
  return { token, expiresAt };
}

const integrationExists = async (ctx: ConnectionServiceContext, environmentId: string, key: string) =>
  (await ctx.store.getIntegration(environmentId, key)) !== null;

/** Every integration the session names must exist: `invalid_body` with one error per unknown one. */
async function refuseUnknownIntegrations(
  ctx: ConnectionServiceContext,
  environmentId: string,
  req: CreateConnectSessionRequest,
  allowed: string[],
): Promise<void> {
  // The session's fields are the body of the request that creates it.
  const missing: FieldError[] = [];
  const exists = (key: string) => integrationExists(ctx, environmentId, key);
  for (const [i, key] of allowed.entries()) {
    if (!(await exists(key)))
      missing.push({
        location: "body",
        path: `allowed_integrations.${i}`,
        message: `integration "${key}" does not exist`,
      });
  }
  for (const [field, keys] of [
    ["integrations_config_defaults", Object.keys(req.integrationsConfigDefaults)],
    ["overrides", Object.keys(req.overrides)],
  ] as const) {
    for (const key of keys) {
      if (!(await exists(key)))
        missing.push({ location: "body", path: `${field}.${key}`, message: `integration "${key}" does not exist` });
    }
  }
  if (missing.length > 0) throw invalidArgument("invalid_body", "Unknown integration(s) in the session.", missing);
}

/** The connection a reconnect session names (it must exist), with its end user and organization; null when none. */
async function reconnectTarget(
  ctx: ConnectionServiceContext,
  environmentId: string,
  req: CreateConnectSessionRequest,
): Promise<{
  reconnect: NonNullable<ConnectSessionRecord["reconnect"]>;
  endUser: JsonObject | undefined;
  organization: JsonObject | undefined;
} | null> {
  if (!req.reconnectConnectionId && !req.reconnectProviderConfigKey) return null;
  const key = req.reconnectProviderConfigKey;
  if (!key || !req.reconnectConnectionId) {
    throw errors.invalidField("connection_id", "and integration_id are both required to reconnect");
  }
  if (!(await integrationExists(ctx, environmentId, key))) throw await unknownIntegration(ctx, environmentId, key);
  const existing = await ctx.store.getConnection(environmentId, key, req.reconnectConnectionId);
  if (!existing) throw errors.unknownConnection(key, [req.reconnectConnectionId]);
  const org = existing.endUser?.organization;
  return {
    reconnect: { providerConfigKey: key, connectionId: req.reconnectConnectionId },
    endUser: (existing.endUser ?? undefined) as JsonObject | undefined,
    organization: org && typeof org === "object" ? (org as JsonObject) : undefined,
  };
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

/**
 * What the session asks for one integration: its integrations_config_defaults with its overrides on
 * top (scopes replaced when the override gives some; parameters and connection_config merged).
 */
export function sessionConfigFor(session: ConnectSessionRecord, key: string): IntegrationConfigDefaultsRecord {
  const d = session.integrationsConfigDefaults[key];
  const o = session.overrides[key];
  return {
    userScopes: o?.userScopes?.length ? o.userScopes : (d?.userScopes ?? []),
    authorizationParams: { ...d?.authorizationParams, ...o?.authorizationParams },
    connectionConfig: { ...d?.connectionConfig, ...o?.connectionConfig },
  };
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
  // Kept on the end user as given, as Nango does; sessionTags checks them (400 invalid_tags).
  const tags = value?.tags;
  if (tags && typeof tags === "object" && !Array.isArray(tags) && Object.keys(tags).length > 0) out.tags = tags;
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

function checkScopes(scopes: string[], path: string): void {
  if (scopes.some((scope) => !/^\S+$/.test(scope)))
    throw errors.invalidField(path, "must not hold empty or spaced scopes");
}

/** Overrides must name integrations the session allows (all when none are listed). */
function checkOverrides(
  given: CreateConnectSessionRequest["overrides"],
  allowed: string[],
): Record<string, ConnectSessionOverrideRecord> {
  const outside = Object.keys(given).filter((key) => allowed.length > 0 && !allowed.includes(key));
  if (outside.length > 0) {
    throw invalidArgument(
      "override_not_allowed",
      `overrides name integration(s) the session does not allow: ${outside.map((k) => `"${k}"`).join(", ")}; add them to allowed_integrations or remove their overrides.`,
      outside.map((key) => ({ path: `overrides.${key}`, message: "is not in allowed_integrations" })),
    );
  }
  const out: Record<string, ConnectSessionOverrideRecord> = {};
  for (const [key, o] of Object.entries(given)) {
    checkScopes(o.userScopes, `overrides.${key}.user_scopes`);
    const rec: ConnectSessionOverrideRecord = {};
    if (o.docsConnect) rec.docsConnect = o.docsConnect;
    if (o.userScopes.length > 0) rec.userScopes = [...o.userScopes];
    if (Object.keys(o.authorizationParams).length > 0) rec.authorizationParams = { ...o.authorizationParams };
    if (o.connectionConfig) rec.connectionConfig = o.connectionConfig as Record<string, unknown>;
    out[key] = rec;
  }
  return out;
}

function checkDefaults(key: string, d: IntegrationConfigDefaults): IntegrationConfigDefaultsRecord {
  checkScopes(d.userScopes, `integrations_config_defaults.${key}.user_scopes`);
  return {
    userScopes: [...d.userScopes],
    authorizationParams: { ...d.authorizationParams },
    connectionConfig: (d.connectionConfig ?? {}) as Record<string, unknown>,
  };
}

/**
 * What a session's authorization or form works on: the integration it allows, its provider, and the
 * connection (a new id, or the reconnect session's existing connection with its config).
 */
export async function sessionTarget(ctx: ConnectionServiceContext, session: ConnectSessionRecord, key: string) {
  if (!key) throw errors.invalidField("provider_config_key", "is required");
  if (!sessionAllows(session, key)) throw errors.integrationNotAllowed(key, session.allowedIntegrations);
  const integ = await integrationOrRefuse(ctx, session.environmentId, key);
  const template = ctx.providers.get(integ.provider);
  if (!template)
    throw errors.unknownProvider(
      integ.provider,
      ctx.providers.list().map((p) => p.name),
    );
  let connectionId: string = crypto.randomUUID();
  let existingConfig: Record<string, unknown> = {};
  if (session.reconnect) {
    const existing = await ctx.store.getConnection(session.environmentId, key, session.reconnect.connectionId);
    if (!existing) throw errors.unknownConnection(key, [session.reconnect.connectionId]);
    connectionId = existing.connectionId;
    existingConfig = existing.connectionConfig;
  }
  return { integ, template, connectionId, existingConfig };
}
