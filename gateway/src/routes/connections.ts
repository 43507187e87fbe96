import type { JsonObject } from "@bufbuild/protobuf";
import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import { successAnswer } from "../openapi/route-doc.ts";
import type { Route } from "../router.ts";
import { listQuery, readConnectionListQuery } from "./connection-list-query.ts";
import { checkWebhookUrlOverride } from "./webhook-url-override.ts";
import {
  connectionAnswer,
  connectionListItemAnswer,
  connectionWithCredentialsAnswer,
  presentConnection,
  presentConnectionListItem,
} from "./present.ts";

const str = z.string().min(1).max(255);
/** Nango's query booleans (zod's stringbool: true/false, 1/0, yes/no, on/off, any case). */
const flag = z.stringbool().optional();
const oneQuery = z
  .object({
    provider_config_key: str,
    // Refresh first even if the token looks fresh.
    force_refresh: flag,
    // Return the refresh token too.
    refresh_token: flag,
    // Nango's GitHub App JWT; Junction has no GitHub App provider: accepted and ignored.
    refresh_github_app_jwt_token: flag,
  })
  .strict();

const deleteQuery = z.object({ provider_config_key: str }).strict();

const jsonObject = z.record(z.string(), z.unknown());
/** An end user as Nango's import and PATCH /connections/{id} take it. */
export const endUserBody = z
  .object({
    id: str,
    email: z.string().email().optional(),
    display_name: z.string().max(255).optional(),
    // Nango's end-user tags: kept on the end user, and among the connection's tags.
    tags: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/** POST /connections: import a connection whose credentials were obtained elsewhere (Nango's import). */
const importBody = z
  .object({
    provider_config_key: str,
    connection_id: str.optional(),
    metadata: jsonObject.optional(),
    connection_config: jsonObject.optional(),
    credentials: z.discriminatedUnion("type", [
      z
        .object({
          type: z.literal("OAUTH2"),
          access_token: z.string().min(1),
          refresh_token: z.string().min(1).optional(),
          // Any date Nango's z.coerce.date() reads: a date string, or Unix milliseconds.
          expires_at: z
            .union([
              z.string().refine((v) => !Number.isNaN(Date.parse(v)), "must be a date"),
              z.number().int().positive(),
            ])
            .optional(),
          raw: jsonObject.optional(),
          // Nango's per-connection OAuth client; ignored: refreshes use the integration's client.
          config_override: z
            .object({
              client_id: z.string().min(1).max(255).optional(),
              client_secret: z.string().min(1).max(2048).optional(),
            })
            .strict()
            .optional(),
        })
        .strict(),
      // Nango's API key and basic credentials; the connection service checks them against the provider.
      z.object({ type: z.literal("API_KEY"), apiKey: z.string().max(4096) }).strict(),
      z.object({ type: z.literal("BASIC"), username: z.string().max(1024), password: z.string().max(4096) }).strict(),
    ]),
    end_user: endUserBody.optional(),
    // Nango's connection tags (stored, see docs/api.md).
    tags: z.record(z.string(), z.string()).optional(),
    // Where this connection's webhooks go instead of the endpoints (checked: checkWebhookUrlOverride).
    webhook_url_override: z.string().max(2048).optional(),
  })
  .strict();

/** The import's credentials as the service takes them. */
function importedCredentials(c: z.output<typeof importBody>["credentials"]) {
  if (c.type === "API_KEY") return { type: c.type, apiKey: c.apiKey };
  if (c.type === "BASIC") return { type: c.type, username: c.username, password: c.password };
  const expiresAt =
    c.expires_at === undefined ? 0 : typeof c.expires_at === "number" ? c.expires_at : Date.parse(c.expires_at);
  return {
    type: "OAUTH2",
    accessToken: c.access_token,
    refreshToken: c.refresh_token ?? "",
    expiresAtMs: BigInt(expiresAt),
    raw: (c.raw ?? {}) as JsonObject,
  };
}

const listAnswer = z.object({
  connections: z.array(connectionListItemAnswer),
  pagination: z.object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    has_more: z.boolean(),
  }),
});
const connectionParam = { connectionId: "The connection's id (connection_id)." };

/** /connection and /connections (both serve the same shapes, as in Nango). */
export function connectionRoutes(): Route[] {
  const routes: Route[] = [];
  routes.push({
    method: "POST",
    pattern: "/connections",
    handler: async ({ clients, req }) => {
      const body = parseWith(importBody, await readJson(req, 256 * 1024), "invalid_body", "body");
      const c = body.credentials;
      const { connection } = await clients.connection.createConnection({
        providerConfigKey: body.provider_config_key,
        connectionId: body.connection_id ?? "",
        metadata: body.metadata as JsonObject | undefined,
        connectionConfig: body.connection_config as JsonObject | undefined,
        endUser: body.end_user as JsonObject | undefined,
        tags: body.tags ?? {},
        webhookUrlOverride: await checkWebhookUrlOverride(clients, body.webhook_url_override),
        credentials: importedCredentials(c),
      });
      if (!connection) throw new Error("createConnection returned no connection");
      return json(presentConnection(connection));
    },
    doc: {
      summary: "Import a connection",
      description:
        "A connection whose credentials were obtained elsewhere (Nango's import): OAuth tokens, an API key ({type: API_KEY, apiKey}) or a user name and password ({type: BASIC, username, password}), as the integration's provider authenticates.",
      tags: ["Connections"],
      body: importBody,
      responses: { 200: connectionAnswer },
      errors: [
        "unknown_provider_config",
        "connection_already_exists",
        "invalid_metadata",
        "invalid_tags",
        "invalid_request",
        "invalid_webhook_url",
        "private_address_not_allowed",
      ],
    },
  });
  for (const base of ["/connection", "/connections"]) {
    routes.push(
      {
        method: "GET",
        pattern: base,
        handler: async ({ clients, url }) => {
          const { request, limit, page } = readConnectionListQuery(url);
          const res = await clients.connection.listConnections(request);
          return json({
            connections: res.connections.map(presentConnectionListItem),
            pagination: { page, limit, total: res.total, has_more: (page + 1) * limit < res.total },
          });
        },
        doc: {
          summary: "List connections",
          tags: ["Connections"],
          query: listQuery,
          responses: { 200: listAnswer },
          errors: ["unknown_provider_config"],
        },
      },
      {
        method: "GET",
        pattern: `${base}/:connectionId`,
        handler: async ({ clients, url, params, dashboard }) => {
          const q = parseWith(oneQuery, queryObject(url), "invalid_query_params", "query");
          // The dashboard shows a connection without its tokens and without refreshing it.
          const includeCredentials = dashboard !== true;
          const { connection, credentials } = await clients.connection.getConnection({
            providerConfigKey: q.provider_config_key,
            connectionId: params.connectionId as string,
            includeCredentials,
            forceRefresh: q.force_refresh === true,
          });
          if (!connection) throw new Error("getConnection returned no connection");
          const read = includeCredentials ? { credentials, refreshToken: q.refresh_token === true } : undefined;
          return json(presentConnection(connection, read));
        },
        doc: {
          summary: "Get a connection",
          description:
            "With its access token and the token response as stored (`raw`), refreshed first when it expires soon, " +
            "as Nango returns it; 403 `credential_reads_disabled` when the operator switched credential reads off.",
          tags: ["Connections"],
          params: connectionParam,
          query: oneQuery,
          responses: { 200: connectionWithCredentialsAnswer },
          errors: [
            "unknown_provider_config",
            "unknown_connection",
            "credential_reads_disabled",
            "stored_secret_unreadable",
            "connection_refresh_failed",
            "connection_refresh_busy",
          ],
        },
      },
      {
        method: "DELETE",
        pattern: `${base}/:connectionId`,
        handler: async ({ clients, url, params }) => {
          const q = parseWith(deleteQuery, queryObject(url), "invalid_query_params", "query");
          await clients.connection.deleteConnection({
            providerConfigKey: q.provider_config_key,
            connectionId: params.connectionId as string,
          });
          return json({ success: true });
        },
        doc: {
          summary: "Delete a connection",
          tags: ["Connections"],
          params: connectionParam,
          query: deleteQuery,
          responses: { 200: successAnswer },
          errors: ["unknown_provider_config", "unknown_connection"],
        },
      },
    );
  }
  return routes;
}
