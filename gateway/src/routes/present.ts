import type { JsonValue } from "@bufbuild/protobuf";
import type { Connection, Credentials, Integration } from "@junction/contracts/connection/v1/connection_service_pb";
import { z } from "zod";
import { iso } from "../http/json.ts";
import { isoOrNull } from "../openapi/route-doc.ts";

/** The answer schemas of the presenters below (the OpenAPI document's; checked against real answers in tests). */
export const integrationAnswer = z
  .object({
    unique_key: z.string(),
    display_name: z.string(),
    provider: z.string(),
    logo: z.null(),
    forward_webhooks: z.boolean(),
    created_at: isoOrNull,
    updated_at: isoOrNull,
    upstream_overrides: z
      .object({
        base_url: z.string().nullable(),
        authorization_url: z.string().nullable(),
        token_url: z.string().nullable(),
      })
      .optional()
      .describe("Only when one is set."),
    webhook_url: z.string().optional().describe("With include=webhook, and on create and update."),
    credentials: z
      .object({
        type: z.literal("OAUTH2"),
        client_id: z.string().nullable(),
        client_secret: z.null().describe("Never returned: write-only."),
        client_secret_set: z.boolean(),
        scopes: z.string().nullable(),
      })
      .optional()
      .describe("With include=credentials."),
  })
  .meta({ id: "Integration" });
const connectionError = z
  .object({ type: z.string(), message: z.string(), created_at: isoOrNull })
  .meta({ id: "ConnectionError" });
const credentialsSummary = z
  .object({ type: z.literal("OAUTH2"), expires_at: isoOrNull })
  .describe("The type and expiry only, no token.");
const endUserAnswer = z.record(z.string(), z.unknown()).nullable();
const tagsAnswer = z.record(z.string(), z.string()).describe("The connection's tags (keys lower-case).");
export const connectionListItemAnswer = z
  .object({
    id: z.string(),
    connection_id: z.string(),
    provider: z.string(),
    provider_config_key: z.string(),
    created: isoOrNull,
    metadata: z.record(z.string(), z.unknown()).nullable(),
    errors: z.array(connectionError),
    end_user: endUserAnswer,
    tags: tagsAnswer,
  })
  .meta({ id: "ConnectionListItem" });
export const connectionAnswer = z
  .object({
    id: z.string(),
    connection_id: z.string(),
    provider_config_key: z.string(),
    provider: z.string(),
    created_at: isoOrNull,
    updated_at: isoOrNull,
    metadata: z.record(z.string(), z.unknown()),
    connection_config: z.record(z.string(), z.unknown()),
    errors: z.array(connectionError),
    end_user: endUserAnswer,
    tags: tagsAnswer,
    webhook_url_override: z
      .string()
      .nullable()
      .describe("Where this connection's webhooks go instead of the environment's endpoints; null when none."),
    credentials: credentialsSummary,
  })
  .meta({ id: "Connection" });
const credentialsAnswer = z
  .object({
    type: z.string(),
    access_token: z.string(),
    refresh_token: z.string().optional().describe("With refresh_token=true."),
    expires_at: isoOrNull,
    raw: z.unknown().describe("The token response as stored; without refresh tokens unless refresh_token=true."),
  })
  .meta({ id: "ConnectionCredentials" });
/** GET /connection/{id}: the connection with its tokens (only the summary when it has none). */
export const connectionWithCredentialsAnswer = connectionAnswer
  .extend({ credentials: z.union([credentialsAnswer, credentialsSummary]) })
  .meta({ id: "ConnectionWithCredentials" });

/** An integration in Nango's public shape, plus Junction's `upstream_overrides` when set. */
export function presentIntegration(i: Integration, include: { webhook?: boolean; credentials?: boolean } = {}) {
  const out: Record<string, unknown> = {
    unique_key: i.uniqueKey,
    display_name: i.displayName,
    provider: i.provider,
    logo: null,
    forward_webhooks: i.forwardWebhooks,
    created_at: iso(i.createdAtMs),
    updated_at: iso(i.updatedAtMs),
  };
  const o = i.overrides;
  if (o && (o.baseUrl || o.authorizationUrl || o.tokenUrl)) {
    out.upstream_overrides = {
      base_url: o.baseUrl || null,
      authorization_url: o.authorizationUrl || null,
      token_url: o.tokenUrl || null,
    };
  }
  if (include.webhook) out.webhook_url = i.webhookUrl;
  if (include.credentials) {
    // The client secret is never returned (Nango returns it; Junction does not: it is write-only).
    out.credentials = {
      type: "OAUTH2",
      client_id: i.clientId || null,
      client_secret: null,
      client_secret_set: i.hasClientSecret,
      scopes: i.scopes.length > 0 ? i.scopes.join(",") : null,
    };
  }
  return out;
}

function presentErrors(c: Connection) {
  return c.errors.map((e) => ({ type: e.type, message: e.message, created_at: iso(e.atMs) }));
}

/** A connection as Nango's list shows it (`created`, no credentials). */
export function presentConnectionListItem(c: Connection) {
  return {
    id: c.id,
    connection_id: c.connectionId,
    provider: c.provider,
    provider_config_key: c.providerConfigKey,
    created: iso(c.createdAtMs),
    metadata: c.metadata ?? null,
    errors: presentErrors(c),
    end_user: c.endUser ?? null,
    tags: c.tags,
  };
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
      : { type: "OAUTH2", expires_at: iso(c.credentialsExpiresAtMs) },
  };
}

function presentCredentials(k: Credentials, withRefreshToken: boolean) {
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
