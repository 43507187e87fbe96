import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import type { ErrorCode } from "../openapi/error-codes.ts";
import { dataOf, type RouteDoc } from "../openapi/route-doc.ts";
import type { Route, RouteContext } from "../router.ts";
import { sessionIntegrations } from "./connect-session-scope.ts";
import { createSchema, toOverrides, updateSchema } from "./integration-input.ts";
import { checkIntegrationSettings } from "./integration-settings-input.ts";
import { integrationAnswer, presentIntegration } from "./present.ts";

const BODY_LIMIT = 64 * 1024;

/** What creating or updating an integration refuses, besides its unknown provider or integration. */
const SETTINGS_ERRORS: ErrorCode[] = [
  "integration_already_exists",
  "unknown_provider_setting",
  "managed_channels_unsupported",
  "invalid_provider_setting",
  "private_address_not_allowed",
  "invalid_request",
];

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

/** /integrations: Nango's public shapes (spec: Resources, Integration). */
export function integrationRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/integrations",
      acceptsConnectSession: true,
      handler: listIntegrations,
      doc: listDoc,
    },
    { method: "POST", pattern: "/integrations", handler: createIntegration, doc: createDoc },
    { method: "GET", pattern: "/integrations/:key", handler: getIntegration, doc: getDoc },
    { method: "PATCH", pattern: "/integrations/:key", handler: updateIntegration, doc: updateDoc },
    { method: "DELETE", pattern: "/integrations/:key", handler: deleteIntegration, doc: deleteDoc },
  ];
}

/** The integrations the key sees, or those a connect session allows. */
async function listIntegrations(ctx: RouteContext): Promise<Response> {
  parseWith(noQuery, queryObject(ctx.url), "invalid_query_params", "query");
  const { integrations } = ctx.connectSessionToken
    ? { integrations: await sessionIntegrations(ctx, ctx.connectSessionToken) }
    : await ctx.clients.connection.listIntegrations({});
  return json({ data: integrations.map((i) => presentIntegration(i)) });
}

const listDoc: RouteDoc = {
  summary: "List integrations",
  description:
    "With a secret key, every integration; with a connect session token (as Nango's Connect UI calls it), only those the session allows.",
  tags: ["Integrations"],
  query: noQuery,
  responses: { 200: dataOf(z.array(integrationAnswer)) },
  errors: ["unknown_connect_session_token", "connect_session_expired"],
};

async function createIntegration({ clients, req }: RouteContext): Promise<Response> {
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
}

const createDoc: RouteDoc = {
  summary: "Create an integration",
  tags: ["Integrations"],
  body: createSchema,
  responses: { 200: dataOf(integrationAnswer) },
  errors: ["unknown_provider", ...SETTINGS_ERRORS],
};

async function getIntegration({ clients, params, url }: RouteContext): Promise<Response> {
  const { include } = parseWith(includeSchema, queryObject(url), "invalid_query_params", "query");
  const { integration } = await clients.connection.getIntegration({ uniqueKey: params.key as string });
  if (!integration) throw new Error("getIntegration returned no integration");
  return json({
    data: presentIntegration(integration, {
      webhook: include.includes("webhook"),
      credentials: include.includes("credentials"),
    }),
  });
}

const getDoc: RouteDoc = {
  summary: "Get an integration",
  tags: ["Integrations"],
  params: { key: "The integration's id (unique_key)." },
  query: includeSchema,
  responses: { 200: dataOf(integrationAnswer) },
  errors: ["unknown_provider_config"],
};

async function updateIntegration({ clients, params, req }: RouteContext): Promise<Response> {
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
}

const updateDoc: RouteDoc = {
  summary: "Update an integration",
  tags: ["Integrations"],
  params: { key: "The integration's id (unique_key)." },
  body: updateSchema,
  responses: { 200: dataOf(integrationAnswer) },
  errors: ["unknown_provider_config", ...SETTINGS_ERRORS],
};

async function deleteIntegration({ clients, params, url }: RouteContext): Promise<Response> {
  const q = parseWith(deleteQuerySchema, queryObject(url), "invalid_query_params", "query");
  const res = await clients.connection.deleteIntegration({
    uniqueKey: params.key as string,
    force: q.force === "true",
  });
  return json({ success: true, deleted_connections: res.deletedConnections });
}

const deleteDoc: RouteDoc = {
  summary: "Delete an integration",
  description: "Refused (409 integration_has_connections) while it has connections, unless force=true.",
  tags: ["Integrations"],
  params: { key: "The integration's id (unique_key)." },
  query: deleteQuerySchema,
  responses: { 200: z.object({ success: z.literal(true), deleted_connections: z.number().int() }) },
  errors: ["unknown_provider_config", "integration_has_connections"],
};
