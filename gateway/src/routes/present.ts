import type { Connection, Integration } from "@junction/contracts/connection/v1/connection_service_pb";
import { z } from "zod";
import { presentErrors } from "@junction/public-api/connection-shape";
export { type CredentialsRead, presentConnection } from "@junction/public-api/connection-shape";
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
    provider_settings: z
      .record(z.string(), z.string())
      .describe("The provider's own settings as set (none is a secret); absent keys take their defaults."),
    managed_channels: z.boolean().describe("Junction itself creates, renews and stops the channels."),
    strict_channels: z
      .boolean()
      .describe(
        "Notifications for channels unknown to the registry are refused at intake (default: managed_channels).",
      ),
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
  .object({ type: z.enum(["OAUTH2", "OAUTH2_CC", "API_KEY", "BASIC"]), expires_at: isoOrNull })
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
const apiKeyAnswer = z.object({ type: z.literal("API_KEY"), apiKey: z.string() }).meta({ id: "ApiKeyCredentials" });
const basicAnswer = z
  .object({ type: z.literal("BASIC"), username: z.string(), password: z.string() })
  .meta({ id: "BasicCredentials" });
export const connectionWithCredentialsAnswer = connectionAnswer
  .extend({ credentials: z.union([credentialsAnswer, apiKeyAnswer, basicAnswer, credentialsSummary]) })
  .meta({ id: "ConnectionWithCredentials" });

/** An integration in Nango's public shape, plus Junction's `upstream_overrides` when set. */
export function presentIntegration(i: Integration, include: { webhook?: boolean; credentials?: boolean } = {}) {
  const out: Record<string, unknown> = {
    unique_key: i.uniqueKey,
    display_name: i.displayName,
    provider: i.provider,
    logo: null,
    forward_webhooks: i.forwardWebhooks,
    provider_settings: { ...i.providerSettings },
    managed_channels: i.managedChannels,
    strict_channels: i.strictChannels,
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
