import type { JsonObject } from "@bufbuild/protobuf";
import { z } from "zod";
import { iso, json } from "../../http/json.ts";
import { parseWith, queryObject, readJson } from "../../http/read-json.ts";
import { dataOf, isoOrNull } from "../../openapi/route-doc.ts";
import type { Route } from "../../router.ts";
import { browserError } from "./browser-error.ts";
import { escapeHtml, htmlPage } from "./html-page.ts";

const BODY_LIMIT = 64 * 1024;
const key = z.string().min(1).max(255);

const endUser = z
  .object({ id: key, email: z.string().email().min(5).optional(), display_name: z.string().max(255).optional() })
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

/** Nango's POST /connect/sessions body (docs/reference/nango-api.md section 3). */
const createBody = z
  .object({
    end_user: endUser,
    organization: organization.optional(),
    allowed_integrations: z.array(key).max(100).optional(),
    integrations_config_defaults: configDefaults.optional(),
  })
  .strict();

const reconnectBody = z
  .object({
    connection_id: key,
    integration_id: key,
    end_user: endUser.optional(),
    organization: organization.optional(),
    integrations_config_defaults: configDefaults.optional(),
  })
  .strict();

const sessionAnswer = dataOf(z.object({ token: z.string(), expires_at: isoOrNull, connect_link: z.string() }));
const SESSION_ERRORS = ["unknown_provider_config", "unknown_connection", "invalid_request"] as const;

function toDefaults(d: z.infer<typeof configDefaults> | undefined) {
  return Object.fromEntries(
    Object.entries(d ?? {}).map(([k, v]) => [
      k,
      {
        userScopes: (v.user_scopes ?? "").split(/[,\s]+/).filter(Boolean),
        authorizationParams: v.authorization_params ?? {},
        connectionConfig: v.connection_config as JsonObject | undefined,
      },
    ]),
  );
}

/** POST /connect/sessions, POST /connect/sessions/reconnect and the connect page at GET /connect. */
export function connectSessionRoutes(): Route[] {
  const created = (baseUrl: string, token: string, expiresAtMs: bigint) =>
    json(
      {
        data: {
          token,
          expires_at: iso(expiresAtMs),
          connect_link: `${baseUrl}/connect?connect_session_token=${encodeURIComponent(token)}`,
        },
      },
      201,
    );
  return [
    {
      method: "POST",
      pattern: "/connect/sessions",
      handler: async ({ clients, req, baseUrl }) => {
        const body = parseWith(createBody, await readJson(req, BODY_LIMIT), "invalid_body");
        const res = await clients.connection.createConnectSession({
          endUser: body.end_user as JsonObject,
          organization: body.organization as JsonObject | undefined,
          allowedIntegrations: body.allowed_integrations ?? [],
          integrationsConfigDefaults: toDefaults(body.integrations_config_defaults),
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
        const body = parseWith(reconnectBody, await readJson(req, BODY_LIMIT), "invalid_body");
        const res = await clients.connection.createConnectSession({
          endUser: body.end_user as JsonObject | undefined,
          organization: body.organization as JsonObject | undefined,
          integrationsConfigDefaults: toDefaults(body.integrations_config_defaults),
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
        errors: [...SESSION_ERRORS],
      },
    },
    {
      method: "GET",
      pattern: "/connect",
      auth: false,
      handler: async (ctx) => {
        try {
          const token = queryObject(ctx.url).connect_session_token;
          const session = await ctx.clients.connection.getConnectSession({
            token: typeof token === "string" ? token : "",
          });
          const links = session.integrations
            .map((i) => {
              const href = `${ctx.baseUrl}/oauth/connect/${encodeURIComponent(i.uniqueKey)}?connect_session_token=${encodeURIComponent(token as string)}`;
              return `<li><a href="${escapeHtml(href)}">${escapeHtml(i.displayName)}</a> <span class="code">${escapeHtml(i.uniqueKey)}</span></li>`;
            })
            .join("");
          return htmlPage(
            200,
            {
              title: "Connect",
              code: "connect_session",
              heading: session.reconnectConnectionId ? "Authorize again" : "Connect an account",
              message:
                session.integrations.length > 0
                  ? "Choose what to connect. You will be sent to the provider to sign in and allow access."
                  : "This session allows no integration that exists.",
              extraHtml: `<ul id="integrations">${links}</ul>`,
            },
            ctx.requestId,
          );
        } catch (err) {
          return browserError(err, ctx, true, "Cannot connect");
        }
      },
      doc: {
        summary: "The connect page",
        description:
          "The page a connect session's `connect_link` opens: the integrations the session allows. Errors are pages.",
        tags: ["Connect"],
        query: z.object({ connect_session_token: z.string() }),
        queryUnchecked: true,
        responses: { 200: { description: "An HTML page.", contentType: "text/html" } },
        errors: ["unknown_connect_session_token", "connect_session_expired"],
      },
    },
  ];
}
