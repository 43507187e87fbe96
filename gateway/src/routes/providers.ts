import { documentationExample, providerAdapter, providerDefinitionSchema } from "@junction/providers";
import type { Provider } from "@junction/contracts/connection/v1/connection_service_pb";
import { z } from "zod";
import { errorResponse } from "../http/error-response.ts";
import { json } from "../http/json.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import { dataOf, type RouteDoc } from "../openapi/route-doc.ts";
import type { Route, RouteContext } from "../router.ts";
import { formFields } from "./oauth/connect-form.ts";
import { sessionProvider } from "./connect-session-scope.ts";

// Nango's `search` (listProviders({ search })): a case-insensitive part of the provider's name.
const listQuery = z.object({ search: z.string().min(1).max(255).optional() }).strict();

const nangoField = z.object({ type: z.literal("string"), title: z.string(), secret: z.boolean() });
/** The connect fields the connection service keeps as credentials; the others are connection config. */
const CREDENTIAL_FIELDS = new Set(["apiKey", "username", "password"]);

const scopeAnswer = z.object({ name: z.string(), description: z.string(), sensitivity: z.string() });
const providerAnswer = z
  .object({
    name: z.string(),
    display_name: z.string(),
    auth_mode: z.enum(["OAUTH2", "OAUTH2_CC", "API_KEY", "BASIC"]),
    docs: z.string().describe('The provider\'s documentation; "" when none.'),
    connect_fields: z
      .array(z.object({ key: z.string(), label: z.string(), docs_url: z.string(), secret: z.boolean() }))
      .describe("What the connect page asks the user for (an API key, a user name and password, a subdomain)."),
    connection_config: z
      .record(z.string(), nangoField)
      .describe("Nango's shape of the connect fields stored as connection config (a subdomain, a shop)."),
    credentials: z
      .record(z.string(), nangoField)
      .describe("Nango's shape of the connect fields that are credentials (an API key, a user name and password)."),
    proxy: z.object({ base_url: z.string() }),
    authorization_url: z.string(),
    token_url: z.string(),
    authorization_params: z.record(z.string(), z.string()),
    default_scopes: z.array(z.string()),
    scopes: z.array(scopeAnswer),
    webhooks: z.object({ headers: z.record(z.string(), z.string()) }).nullable(),
    integration_settings: z
      .array(
        z.object({
          key: z.string(),
          label: z.string(),
          description: z.string(),
          default_value: z.string().describe('"" when there is none.'),
          docs_url: z.string().nullable(),
        }),
      )
      .describe("What an integration of this provider may hold in `provider_settings`."),
    channels: z
      .object({
        kind: z.string().describe('What one channel is called ("watch channel", "subscription").'),
        manageable: z.boolean().describe("Whether an integration may set `managed_channels`."),
      })
      .nullable()
      .describe("The provider's notification channels; null when it has none."),
  })
  .meta({ id: "Provider" });

/** A provider template in Nango's public shape, with its scope catalogue. */
function presentProvider(p: Provider) {
  return {
    name: p.name,
    display_name: p.displayName,
    auth_mode: p.authMode || "OAUTH2",
    docs: p.docsUrl,
    connect_fields: formFields(p).map((f) => ({ key: f.key, label: f.label, docs_url: f.docsUrl, secret: f.secret })),
    ...nangoFields(p),
    proxy: { base_url: p.baseUrl },
    authorization_url: p.authorizationUrl,
    token_url: p.tokenUrl,
    authorization_params: p.authorizationParams,
    default_scopes: p.defaultScopes,
    scopes: p.scopes.map((s) => ({ name: s.name, description: s.description, sensitivity: s.sensitivity })),
    webhooks: p.webhookHeaders && Object.keys(p.webhookHeaders).length > 0 ? { headers: p.webhookHeaders } : null,
    ...providerExtras(p.name),
  };
}

/** The connect fields as Nango's Connect UI reads them: `credentials` and `connection_config`, JSON-schema-like. */
function nangoFields(p: Provider) {
  const out = { connection_config: {} as Record<string, unknown>, credentials: {} as Record<string, unknown> };
  for (const f of formFields(p)) {
    const group = CREDENTIAL_FIELDS.has(f.key) ? out.credentials : out.connection_config;
    group[f.key] = { type: "string", title: f.label, secret: f.secret };
  }
  return out;
}

/** What the provider's adapter says of its integration settings and channels (none for one it does not know). */
function providerExtras(name: string) {
  const adapter = providerAdapter(name);
  return {
    integration_settings: (adapter?.integrationSettings ?? []).map((s) => ({
      key: s.key,
      label: s.label,
      description: s.description,
      default_value: s.defaultValue,
      docs_url: s.docsUrl ?? null,
    })),
    channels: adapter?.channels ? { kind: adapter.channels.label, manageable: !!adapter.channels.create } : null,
  };
}

/** The largest provider definition accepted (a long scope catalogue fits many times over). */
const DEFINITION_LIMIT = 256 * 1024;

/**
 * GET /providers (`search`) and /providers/{name}: the templates integrations are created from; POST
 * /providers: an operator's provider, defined as data.
 */
export function providerRoutes(): Route[] {
  return [
    { method: "GET", pattern: "/providers", handler: listProviders, doc: listDoc },
    { method: "POST", pattern: "/providers", handler: defineProvider, doc: defineDoc },
    {
      method: "GET",
      pattern: "/providers/:provider",
      acceptsConnectSession: true,
      handler: getProvider,
      doc: getDoc,
    },
  ];
}

async function listProviders({ clients, url }: RouteContext): Promise<Response> {
  const search = parseWith(listQuery, queryObject(url), "invalid_query_params", "query").search?.toLowerCase();
  const { providers } = await clients.connection.listProviders({});
  const found = search ? providers.filter((p) => p.name.toLowerCase().includes(search)) : providers;
  return json({ data: found.map(presentProvider) });
}

async function defineProvider({ clients, req }: RouteContext): Promise<Response> {
  // Validated by the connection service, with the schema and the messages of the built-in catalogue.
  const body = await readJson(req, DEFINITION_LIMIT);
  const { provider, created } = await clients.connection.putProvider({ definitionJson: JSON.stringify(body) });
  if (!provider) throw new Error("putProvider returned no provider");
  return json({ data: presentProvider(provider) }, created ? 201 : 200);
}

/** One provider; for a connect session, only one of an integration the session allows. */
async function getProvider(ctx: RouteContext): Promise<Response> {
  const name = ctx.params.provider as string;
  if (ctx.connectSessionToken) {
    return json({ data: presentProvider(await sessionProvider(ctx, ctx.connectSessionToken, name)) });
  }
  const { providers } = await ctx.clients.connection.listProviders({});
  const provider = providers.find((p) => p.name === name);
  if (!provider) return errorResponse(404, "unknown_provider", `Unknown provider "${name}".`);
  return json({ data: presentProvider(provider) });
}

const listDoc: RouteDoc = {
  summary: "List provider templates",
  description: "The templates integrations are created from, with their scope catalogue and each scope's sensitivity.",
  tags: ["Providers"],
  query: listQuery,
  responses: { 200: dataOf(z.array(providerAnswer)) },
  errors: [],
};

const defineDoc: RouteDoc = {
  summary: "Define a provider",
  description:
    "Adds a provider defined as data, or replaces one defined over the API (a built-in's name is refused: 409 provider_is_built_in), with the schema of the built-in catalogue (docs/providers.md). Stored with the integrations: it survives restarts and every process of the connection service knows it within seconds. 201 when no provider was defined over the API under this name, 200 when one is replaced.",
  tags: ["Providers"],
  body: providerDefinitionSchema,
  responses: { 200: dataOf(providerAnswer), 201: dataOf(providerAnswer) },
  errors: ["invalid_provider_definition", "private_address_not_allowed", "provider_is_built_in"],
};

const getDoc: RouteDoc = {
  summary: "Get a provider template",
  description:
    "With a connect session token (as Nango's Connect UI calls it), only a provider of an integration the session allows.",
  tags: ["Providers"],
  params: { provider: `The provider's name (e.g. ${documentationExample.provider}).` },
  responses: { 200: dataOf(providerAnswer) },
  errors: ["unknown_provider", "unknown_connect_session_token", "connect_session_expired", "integration_not_allowed"],
  errorStatus: { unknown_provider: 404 },
};
