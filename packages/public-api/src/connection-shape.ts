import type { JsonValue } from "@bufbuild/protobuf";
import type { Connection, Credentials } from "@junction/contracts/connection/v1/connection_service_pb";

/** Unix milliseconds (bigint from protobuf) as an ISO-8601 string, or null for 0. */
export function iso(ms: bigint | number): string | null {
  const n = Number(ms);
  return n > 0 ? new Date(n).toISOString() : null;
}

/** A connection's errors in Nango's shape. */
export function presentErrors(c: Connection) {
  return c.errors.map((e) => ({ type: e.type, message: e.message, created_at: iso(e.atMs) }));
}

/** What GET /connection/{id} returns of the credentials (the caller asked for them). */
export interface CredentialsRead {
  /** Unset for a connection that has none. */
  credentials: Credentials | undefined;
  /** refresh_token=true: the refresh token too; otherwise it is left out, also from `raw`. */
  refreshToken: boolean;
}

/**
 * One connection in Nango's shape. Without `read` (the dashboard), `credentials` tells only the type
 * and expiry; with it, the access token and the token response as stored, as Nango returns them.
 */
export function presentConnection(c: Connection, read?: CredentialsRead) {
  return {
    id: c.id,
    connection_id: c.connectionId,
    provider_config_key: c.providerConfigKey,
    provider: c.provider,
    created_at: iso(c.createdAtMs),
    updated_at: iso(c.updatedAtMs),
    metadata: c.metadata ?? {},
    connection_config: c.connectionConfig ?? {},
    errors: presentErrors(c),
    end_user: c.endUser ?? null,
    tags: c.tags,
    webhook_url_override: c.webhookUrlOverride || null,
    credentials: read?.credentials
      ? presentCredentials(read.credentials, read.refreshToken)
      : { type: c.credentialsType || "OAUTH2", expires_at: iso(c.credentialsExpiresAtMs) },
  };
}

function presentCredentials(k: Credentials, withRefreshToken: boolean) {
  // Nango's shapes for an API key and basic credentials.
  if (k.type === "API_KEY") return { type: k.type, apiKey: k.apiKey };
  if (k.type === "BASIC") return { type: k.type, username: k.username, password: k.password };
  const raw = (k.raw ?? {}) as JsonValue;
  return {
    type: k.type || "OAUTH2",
    access_token: k.accessToken,
    ...(withRefreshToken && k.refreshToken ? { refresh_token: k.refreshToken } : {}),
    expires_at: iso(k.expiresAtMs),
    raw: withRefreshToken ? raw : withoutRefreshTokens(raw),
  };
}

/** Drops every `refresh_token` key (any case or separator, at any depth), as Nango does without refresh_token=true. */
function withoutRefreshTokens(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withoutRefreshTokens);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.replace(/[^a-z]/gi, "").toLowerCase() !== "refreshtoken") out[k] = withoutRefreshTokens(v as JsonValue);
  }
  return out;
}
