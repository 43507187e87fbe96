import type { Connection, Integration } from "@junction/contracts/connection/v1/connection_service_pb";
import { iso } from "../http/json.ts";

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

/**
 * One connection in Nango's shape. Tokens are never returned: Junction holds them so that the app
 * does not have to; `credentials` tells only the type and expiry.
 */
export function presentConnection(c: Connection) {
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
    credentials: { type: "OAUTH2", expires_at: iso(c.credentialsExpiresAtMs) },
  };
}
