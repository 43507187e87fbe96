import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, queryObject } from "../http/read-json.ts";
import { type RouteDoc, successAnswer } from "../openapi/route-doc.ts";
import type { Route, RouteContext } from "../router.ts";
import { importConnection, importConnectionDoc } from "./connection-import.ts";
import { listQuery, readConnectionListQuery } from "./connection-list-query.ts";
import {
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
  const routes: Route[] = [
    { method: "POST", pattern: "/connections", handler: importConnection, doc: importConnectionDoc },
  ];
  for (const base of ["/connection", "/connections"]) {
    routes.push(
      { method: "GET", pattern: base, handler: listConnections, doc: listDoc },
      { method: "GET", pattern: `${base}/:connectionId`, handler: getConnection, doc: getDoc },
      { method: "DELETE", pattern: `${base}/:connectionId`, handler: deleteConnection, doc: deleteDoc },
    );
  }
  return routes;
}

async function listConnections({ clients, url }: RouteContext): Promise<Response> {
  const { request, limit, page } = readConnectionListQuery(url);
  const res = await clients.connection.listConnections(request);
  return json({
    connections: res.connections.map(presentConnectionListItem),
    pagination: { page, limit, total: res.total, has_more: (page + 1) * limit < res.total },
  });
}

const listDoc: RouteDoc = {
  summary: "List connections",
  tags: ["Connections"],
  query: listQuery,
  responses: { 200: listAnswer },
  errors: ["unknown_provider_config"],
};

async function getConnection({ clients, url, params, dashboard }: RouteContext): Promise<Response> {
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
}

const getDoc: RouteDoc = {
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
};

async function deleteConnection({ clients, url, params }: RouteContext): Promise<Response> {
  const q = parseWith(deleteQuery, queryObject(url), "invalid_query_params", "query");
  await clients.connection.deleteConnection({
    providerConfigKey: q.provider_config_key,
    connectionId: params.connectionId as string,
  });
  return json({ success: true });
}

const deleteDoc: RouteDoc = {
  summary: "Delete a connection",
  tags: ["Connections"],
  params: connectionParam,
  query: deleteQuery,
  responses: { 200: successAnswer },
  errors: ["unknown_provider_config", "unknown_connection"],
};
