import type { JsonObject } from "@bufbuild/protobuf";
import type { GetConnectSessionResponse } from "@junction/contracts/connection/v1/connection_service_pb";
import { invalidArgument } from "@junction/platform";
import { z } from "zod";
import { iso, json } from "../../http/json.ts";
import { parseWith, readJson } from "../../http/read-json.ts";
import { dataOf, isoOrNull } from "../../openapi/route-doc.ts";
import type { Route } from "../../router.ts";
import { checkWebhookUrlOverride } from "../webhook-url-override.ts";

const BODY_LIMIT = 64 * 1024;
const key = z.string().min(1).max(255);

// Tag contents (strings, keys, how many) are checked by the connection service: 400 invalid_tags.
const tags = z.record(z.string(), z.unknown());
const endUser = z
  .object({
    id: key,
    email: z.string().email().min(5).optional(),
    display_name: z.string().max(255).optional(),
    tags: tags.optional(),
  })
  .strict();
const organization = z.object({ id: key, display_name: z.string().max(255).optional() }).strict();
const configDefaults = z.record(
  key,
  z
    .object({
      user_scopes: z.string().max(4096).optional(),
      authorization_params: z.record(z.string(), z.string()).optional(),
      connection_config: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
);

/** Nango's overrides (docs_connect), plus the defaults' fields, which they replace or extend. */
const overrides = z.record(
  key,
  z
    .object({
      docs_connect: z.string().url().max(2048).optional(),
      user_scopes: z.string().max(4096).optional(),
      authorization_params: z.record(z.string(), z.string()).optional(),
      connection_config: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
);

const sessionFields = {
  end_user: endUser.optional(),
  organization: organization.optional(),
  integrations_config_defaults: configDefaults.optional(),
  overrides: overrides.optional(),
  tags: tags.optional(),
  // Checked by the webhook service (checkWebhookUrlOverride); "" is none.
  webhook_url_override: z.string().max(2048).optional(),
};

/** Nango's POST /connect/sessions body: end_user is optional only when tags are given. */
const createBody = z
  .object({ ...sessionFields, allowed_integrations: z.array(key).max(100).optional() })
  .strict()
  .refine((b) => b.end_user !== undefined || b.tags !== undefined, {
    path: ["end_user"],
    message: "is required unless tags are given",
  });

const reconnectBody = z.object({ ...sessionFields, connection_id: key, integration_id: key }).strict();

/** Top-level tags as the RPC carries them (strings); their keys and count are checked by the service. */
function stringTags(value: Record<string, unknown> | undefined): Record<string, string> {
  const wrong = Object.entries(value ?? {}).filter(([, v]) => typeof v !== "string");
  if (wrong.length > 0) {
    throw invalidArgument(
      "invalid_tags",
      `Invalid tags: ${wrong.map(([k]) => `tags.${k}`).join(", ")} must be strings.`,
      wrong.map(([k]) => ({ path: `tags.${k}`, message: "must be a string" })),
    );
  }
  return (value ?? {}) as Record<string, string>;
}

function toOverrides(o: z.infer<typeof overrides> | undefined) {
  return Object.fromEntries(
    Object.entries(o ?? {}).map(([k, v]) => [
      k,
      {
        docsConnect: v.docs_connect ?? "",
        userScopes: splitScopes(v.user_scopes),
        authorizationParams: v.authorization_params ?? {},
        connectionConfig: v.connection_config as JsonObject | undefined,
      },
    ]),
  );
}

function splitScopes(scopes: string | undefined): string[] {
  return (scopes ?? "").split(/[,\s]+/).filter(Boolean);
}

const sessionAnswer = dataOf(z.object({ token: z.string(), expires_at: isoOrNull, connect_link: z.string() }));
/** What both session routes answer; a reconnect also names a connection that must exist. */
const SESSION_ERRORS = ["invalid_request", "invalid_tags", "override_not_allowed", "invalid_webhook_url"] as const;

function toDefaults(d: z.infer<typeof configDefaults> | undefined) {
  return Object.fromEntries(
    Object.entries(d ?? {}).map(([k, v]) => [
      k,
      {
        userScopes: splitScopes(v.user_scopes),
        authorizationParams: v.authorization_params ?? {},
        connectionConfig: v.connection_config as JsonObject | undefined,
      },
    ]),
  );
}

const stringRecord = z.record(z.string(), z.string());
/** The answer of presentSession below (GET /connect/session). */
const connectSessionAnswer = dataOf(
  z.object({
    endUser: z
      .object({
        id: z.string(),
        display_name: z.string().nullable(),
        email: z.string().nullable(),
        tags: stringRecord.nullable(),
        organization: z.object({ id: z.string(), display_name: z.string().nullable() }).nullable(),
      })
      .nullable(),
    tags: stringRecord.describe("The tags the connection will have."),
    expires_at: isoOrNull,
    allowed_integrations: z.array(z.string()).optional().describe("Only when the session limits them."),
    integrations_config_defaults: z
      .record(
        z.string(),
        z.object({
          user_scopes: z.string(),
          authorization_params: stringRecord,
          connection_config: z.record(z.string(), z.unknown()),
        }),
      )
      .optional(),
    overrides: z
      .record(
        z.string(),
        z.object({
          docs_connect: z.string().optional(),
          user_scopes: z.string().optional(),
          authorization_params: stringRecord.optional(),
          connection_config: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .optional(),
    isReconnecting: z.literal(true).optional().describe("Only for a reconnect session."),
    websocketsPath: z.string().describe("The path of the authorization WebSocket (Nango's `websocketsPath`)."),
    connectUISettings: z
      .object({
        theme: z.object({ light: z.object({ primary: z.string() }), dark: z.object({ primary: z.string() }) }),
        defaultTheme: z.enum(["light", "dark", "system"]),
        showWatermark: z.boolean(),
      })
      .describe("Nango's Connect UI settings: its accent colours and default theme."),
  }),
);

/** The Connect UI's accent colours (Junction's own UI's) and theme: the system's unless the page says. */
const CONNECT_UI_SETTINGS = {
  theme: { light: { primary: "#2f5bd3" }, dark: { primary: "#8fb0ff" } },
  defaultTheme: "system",
  showWatermark: false,
};

/** GET /connect/session's data, in Nango's shape (endUser, allowed_integrations, ..., isReconnecting). */
function presentSession(s: GetConnectSessionResponse, websocketsPath: string) {
  const eu = s.endUser as Record<string, unknown> | undefined;
  const org = s.organization as Record<string, unknown> | undefined;
  const data: Record<string, unknown> = {
    endUser: eu
      ? {
          id: eu.id,
          display_name: eu.display_name ?? null,
          email: eu.email ?? null,
          tags: eu.tags ?? null,
          organization: org ? { id: org.id, display_name: org.display_name ?? null } : null,
        }
      : null,
    tags: s.tags,
    expires_at: iso(s.expiresAtMs),
  };
  if (s.allowedIntegrations.length > 0) data.allowed_integrations = s.allowedIntegrations;
  const defaults = Object.entries(s.integrationsConfigDefaults);
  if (defaults.length > 0) {
    data.integrations_config_defaults = Object.fromEntries(
      defaults.map(([k, d]) => [
        k,
        {
          user_scopes: d.userScopes.join(" "),
          authorization_params: d.authorizationParams,
          connection_config: d.connectionConfig ?? {},
        },
      ]),
    );
  }
  const overrides = Object.entries(s.overrides);
  if (overrides.length > 0) {
    data.overrides = Object.fromEntries(
      overrides.map(([k, o]) => {
        const out: Record<string, unknown> = {};
        if (o.docsConnect) out.docs_connect = o.docsConnect;
        if (o.userScopes.length > 0) out.user_scopes = o.userScopes.join(" ");
        if (Object.keys(o.authorizationParams).length > 0) out.authorization_params = o.authorizationParams;
        if (o.connectionConfig) out.connection_config = o.connectionConfig;
        return [k, out];
      }),
    );
  }
  if (s.reconnectConnectionId) data.isReconnecting = true;
  data.websocketsPath = websocketsPath;
  data.connectUISettings = CONNECT_UI_SETTINGS;
  return data;
}

/** POST /connect/sessions, POST /connect/sessions/reconnect and GET /connect/session. */
/** `websocketsPath`: where the gateway serves the frontend SDK's socket (JUNCTION_WEBSOCKETS_PATH). */
export function connectSessionRoutes(websocketsPath: string): Route[] {
  const created = (baseUrl: string, token: string, expiresAtMs: bigint) =>
    json(
      {
        data: {
          token,
          expires_at: iso(expiresAtMs),
          connect_link: `${baseUrl}/connect/?session_token=${encodeURIComponent(token)}`,
        },
      },
      201,
    );
  return [
    {
      method: "POST",
      pattern: "/connect/sessions",
      handler: async ({ clients, req, baseUrl }) => {
        const body = parseWith(createBody, await readJson(req, BODY_LIMIT), "invalid_body", "body");
        const res = await clients.connection.createConnectSession({
          endUser: body.end_user as JsonObject | undefined,
          organization: body.organization as JsonObject | undefined,
          allowedIntegrations: body.allowed_integrations ?? [],
          integrationsConfigDefaults: toDefaults(body.integrations_config_defaults),
          overrides: toOverrides(body.overrides),
          tags: stringTags(body.tags),
          webhookUrlOverride: await checkWebhookUrlOverride(clients, body.webhook_url_override),
        });
        return created(baseUrl, res.token, res.expiresAtMs);
      },
      doc: {
        summary: "Create a connect session",
        description: "A short-lived token for the end user to connect an account at `connect_link`.",
        tags: ["Connect"],
        body: createBody,
        responses: { 201: sessionAnswer },
        errors: [...SESSION_ERRORS],
      },
    },
    {
      method: "POST",
      pattern: "/connect/sessions/reconnect",
      handler: async ({ clients, req, baseUrl }) => {
        const body = parseWith(reconnectBody, await readJson(req, BODY_LIMIT), "invalid_body", "body");
        const res = await clients.connection.createConnectSession({
          endUser: body.end_user as JsonObject | undefined,
          organization: body.organization as JsonObject | undefined,
          integrationsConfigDefaults: toDefaults(body.integrations_config_defaults),
          overrides: toOverrides(body.overrides),
          tags: stringTags(body.tags),
          webhookUrlOverride: await checkWebhookUrlOverride(clients, body.webhook_url_override),
          reconnectConnectionId: body.connection_id,
          reconnectProviderConfigKey: body.integration_id,
        });
        return created(baseUrl, res.token, res.expiresAtMs);
      },
      doc: {
        summary: "Create a reconnect session",
        description: "A connect session that authorizes an existing connection again.",
        tags: ["Connect"],
        body: reconnectBody,
        responses: { 201: sessionAnswer },
        errors: ["unknown_provider_config", "unknown_connection", ...SESSION_ERRORS],
      },
    },
    {
      // Nango's GET /connect/session: the session of the connect session token sent as the bearer.
      method: "GET",
      pattern: "/connect/session",
      auth: false,
      handler: async ({ clients, req }) => {
        const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get("authorization") ?? "")?.[1] ?? "";
        const session = await clients.connection.getConnectSession({ token });
        return json({ data: presentSession(session, websocketsPath) });
      },
      doc: {
        summary: "Read the connect session",
        description:
          "The session of the connect session token sent as the bearer (not a secret key): its end user, tags, " +
          "allowed integrations, defaults and overrides, as Nango's.",
        tags: ["Connect"],
        connectSessionToken: true,
        responses: { 200: connectSessionAnswer },
        errors: ["unknown_connect_session_token", "connect_session_expired"],
      },
    },
  ];
}
