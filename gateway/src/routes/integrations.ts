import { INTEGRATION_KEY_PATTERN, INTEGRATION_KEY_RULE } from "@junction/public-api/limits";
import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import { dataOf } from "../openapi/route-doc.ts";
import type { Route } from "../router.ts";
import {
  checkIntegrationSettings,
  managedChannelsSchema,
  strictChannelsSchema,
  providerSettingsSchema,
} from "./integration-settings-input.ts";
import { integrationAnswer, presentIntegration } from "./present.ts";
import { sessionIntegrations } from "./connect-session-scope.ts";

const BODY_LIMIT = 64 * 1024;

const scopesSchema = z
  .union([z.string(), z.array(z.string().min(1))])
  .transform((v) => (Array.isArray(v) ? v : v.split(/[,\s]+/).filter(Boolean)));

const credentialsSchema = z
  .object({
    type: z.literal("OAUTH2"),
    client_id: z.string().min(1),
    client_secret: z.string().min(1),
    scopes: scopesSchema.optional(),
    // Nango's secret for verifying a provider's signed webhooks; Junction's providers sign none: ignored.
    webhook_secret: z.string().max(255).optional(),
  })
  .strict();

/**
 * Nango's own provider-specific settings: accepted (as Nango's shape: string values) and ignored.
 * Junction's are `provider_settings`, checked against the provider's adapter.
 */
const ignoredNangoSettings = {
  integration_config: z.record(z.string(), z.string().max(8192)).optional(),
  custom: z.record(z.string(), z.string()).optional(),
};

const url = z.string().url().max(2048);
const integrationKey = z.string().regex(INTEGRATION_KEY_PATTERN, INTEGRATION_KEY_RULE);
const overridesSchema = z
  .object({ base_url: url.optional(), authorization_url: url.optional(), token_url: url.optional() })
  .strict();

const createSchema = z
  .object({
    unique_key: integrationKey,
    provider: z.string().min(1).max(255),
    display_name: z.string().min(1).max(255).optional(),
    credentials: credentialsSchema.optional(),
    forward_webhooks: z.boolean().optional(),
    upstream_overrides: overridesSchema.optional(),
    provider_settings: providerSettingsSchema.optional(),
    managed_channels: managedChannelsSchema.optional(),
    strict_channels: strictChannelsSchema.optional(),
    ...ignoredNangoSettings,
  })
  .strict();

const updateSchema = z
  .object({
    unique_key: integrationKey.optional(),
    display_name: z.string().min(1).max(255).optional(),
    credentials: credentialsSchema.partial({ client_secret: true }).optional(),
    forward_webhooks: z.boolean().optional(),
    upstream_overrides: overridesSchema.optional(),
    provider_settings: providerSettingsSchema.optional(),
    managed_channels: managedChannelsSchema.optional(),
    strict_channels: strictChannelsSchema.optional(),
    ...ignoredNangoSettings,
  })
  .strict();

const includeSchema = z
  .object({
    include: z
      .union([z.enum(["webhook", "credentials"]), z.array(z.enum(["webhook", "credentials"]))])
      .optional()
      .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v])),
  })
  .strict();

const deleteQuerySchema = z.object({ force: z.enum(["true", "false"]).optional() }).strict();
const noQuery = z.object({}).strict();

function toOverrides(o: z.infer<typeof overridesSchema> | undefined) {
  return o
    ? { baseUrl: o.base_url ?? "", authorizationUrl: o.authorization_url ?? "", tokenUrl: o.token_url ?? "" }
    : undefined;
}

/** /integrations: Nango's public shapes (spec: Resources, Integration). */
export function integrationRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/integrations",
      acceptsConnectSession: true,
      handler: async (ctx) => {
        parseWith(noQuery, queryObject(ctx.url), "invalid_query_params", "query");
        const { integrations } = ctx.connectSessionToken
          ? { integrations: await sessionIntegrations(ctx, ctx.connectSessionToken) }
          : await ctx.clients.connection.listIntegrations({});
        return json({ data: integrations.map((i) => presentIntegration(i)) });
      },
      doc: {
        summary: "List integrations",
        description:
          "With a secret key, every integration; with a connect session token (as Nango's Connect UI calls it), only those the session allows.",
        tags: ["Integrations"],
        query: noQuery,
        responses: { 200: dataOf(z.array(integrationAnswer)) },
        errors: ["unknown_connect_session_token", "connect_session_expired"],
      },
    },
    {
      method: "POST",
      pattern: "/integrations",
      handler: async ({ clients, req }) => {
        const body = parseWith(createSchema, await readJson(req, BODY_LIMIT), "invalid_body", "body");
        checkIntegrationSettings(body.provider, body);
        const { integration } = await clients.connection.createIntegration({
          uniqueKey: body.unique_key,
          provider: body.provider,
          displayName: body.display_name ?? "",
          clientId: body.credentials?.client_id ?? "",
          clientSecret: body.credentials?.client_secret ?? "",
          scopes: body.credentials?.scopes ?? [],
          overrides: toOverrides(body.upstream_overrides),
          providerSettings: body.provider_settings ?? {},
          managedChannels: body.managed_channels ?? false,
          strictChannels: body.strict_channels,
        });
        if (!integration) throw new Error("createIntegration returned no integration");
        let out = integration;
        if (body.forward_webhooks === false) {
          const updated = await clients.connection.updateIntegration({
            uniqueKey: body.unique_key,
            forwardWebhooks: false,
          });
          out = updated.integration ?? integration;
        }
        return json({ data: presentIntegration(out, { webhook: true }) });
      },
      doc: {
        summary: "Create an integration",
        tags: ["Integrations"],
        body: createSchema,
        responses: { 200: dataOf(integrationAnswer) },
        errors: [
          "unknown_provider",
          "integration_already_exists",
          "unknown_provider_setting",
          "managed_channels_unsupported",
          "invalid_provider_setting",
          "private_address_not_allowed",
          "invalid_request",
        ],
      },
    },
    {
      method: "GET",
      pattern: "/integrations/:key",
      handler: async ({ clients, params, url }) => {
        const { include } = parseWith(includeSchema, queryObject(url), "invalid_query_params", "query");
        const { integration } = await clients.connection.getIntegration({ uniqueKey: params.key as string });
        if (!integration) throw new Error("getIntegration returned no integration");
        return json({
          data: presentIntegration(integration, {
            webhook: include.includes("webhook"),
            credentials: include.includes("credentials"),
          }),
        });
      },
      doc: {
        summary: "Get an integration",
        tags: ["Integrations"],
        params: { key: "The integration's id (unique_key)." },
        query: includeSchema,
        responses: { 200: dataOf(integrationAnswer) },
        errors: ["unknown_provider_config"],
      },
    },
    {
      method: "PATCH",
      pattern: "/integrations/:key",
      handler: async ({ clients, params, req }) => {
        const body = parseWith(updateSchema, await readJson(req, BODY_LIMIT), "invalid_body", "body");
        if (body.provider_settings !== undefined || body.managed_channels !== undefined) {
          const current = await clients.connection.getIntegration({ uniqueKey: params.key as string });
          checkIntegrationSettings(current.integration?.provider ?? "", body);
        }
        const { integration } = await clients.connection.updateIntegration({
          uniqueKey: params.key as string,
          newUniqueKey: body.unique_key,
          displayName: body.display_name,
          clientId: body.credentials?.client_id,
          clientSecret: body.credentials?.client_secret,
          replaceScopes: body.credentials?.scopes !== undefined,
          scopes: body.credentials?.scopes ?? [],
          overrides: toOverrides(body.upstream_overrides),
          forwardWebhooks: body.forward_webhooks,
          providerSettings: body.provider_settings ? { values: body.provider_settings } : undefined,
          managedChannels: body.managed_channels,
          strictChannels: body.strict_channels,
        });
        if (!integration) throw new Error("updateIntegration returned no integration");
        return json({ data: presentIntegration(integration, { webhook: true }) });
      },
      doc: {
        summary: "Update an integration",
        tags: ["Integrations"],
        params: { key: "The integration's id (unique_key)." },
        body: updateSchema,
        responses: { 200: dataOf(integrationAnswer) },
        errors: [
          "unknown_provider_config",
          "integration_already_exists",
          "unknown_provider_setting",
          "managed_channels_unsupported",
          "invalid_provider_setting",
          "private_address_not_allowed",
          "invalid_request",
        ],
      },
    },
    {
      method: "DELETE",
      pattern: "/integrations/:key",
      handler: async ({ clients, params, url }) => {
        const q = parseWith(deleteQuerySchema, queryObject(url), "invalid_query_params", "query");
        const res = await clients.connection.deleteIntegration({
          uniqueKey: params.key as string,
          force: q.force === "true",
        });
        return json({ success: true, deleted_connections: res.deletedConnections });
      },
      doc: {
        summary: "Delete an integration",
        description: "Refused (409 integration_has_connections) while it has connections, unless force=true.",
        tags: ["Integrations"],
        params: { key: "The integration's id (unique_key)." },
        query: deleteQuerySchema,
        responses: { 200: z.object({ success: z.literal(true), deleted_connections: z.number().int() }) },
        errors: ["unknown_provider_config", "integration_has_connections"],
      },
    },
  ];
}
