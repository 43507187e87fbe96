import type { JsonObject } from "@bufbuild/protobuf";
import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import type { Route } from "../router.ts";
import { presentConnection, presentConnectionListItem } from "./present.ts";

const str = z.string().min(1).max(255);
const listQuery = z
  .object({
    connectionId: str.optional(),
    integrationId: str.optional(),
    search: str.optional(),
    endUserId: str.optional(),
    // Junction extension: Nango returns everything at once; Junction pages (default 100, at most 1000).
    limit: z.coerce.number().int().min(1).max(1000).optional(),
    page: z.coerce.number().int().min(0).optional(),
  })
  .strict();

/** Nango's tag filter, `tags[key]=value` (deepObject), every tag required; keys compare lower-cased. */
const tagFilter = z
  .record(z.string().min(1).max(64), z.string().min(1).max(255, "at most 255 characters"))
  .refine((t) => Object.keys(t).length <= 10, "at most 10 tags");

/** Splits `tags[key]=value` parameters from the rest of a query. */
function splitTags(query: Record<string, string | string[]>) {
  const rest: Record<string, string | string[]> = {};
  const tags: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(query)) {
    const m = /^tags\[(.*)\]$/.exec(k);
    if (m) tags[(m[1] as string).toLowerCase()] = v;
    else rest[k] = v;
  }
  return { rest, tags };
}

const oneQuery = z
  .object({
    provider_config_key: str,
    // Accepted for Nango compatibility; tokens are never returned, and refresh happens on use.
    refresh_token: z.enum(["true", "false"]).optional(),
    force_refresh: z.enum(["true", "false"]).optional(),
  })
  .strict();

const deleteQuery = z.object({ provider_config_key: str }).strict();

const jsonObject = z.record(z.string(), z.unknown());
/** POST /connections: import a connection whose credentials were obtained elsewhere (Nango's import). */
const importBody = z
  .object({
    provider_config_key: str,
    connection_id: str.optional(),
    metadata: jsonObject.optional(),
    connection_config: jsonObject.optional(),
    credentials: z
      .object({
        type: z.literal("OAUTH2"),
        access_token: z.string().min(1),
        refresh_token: z.string().min(1).optional(),
        expires_at: z.union([z.string().datetime({ offset: true }), z.number().int().positive()]).optional(),
        raw: jsonObject.optional(),
      })
      .strict(),
    end_user: z
      .object({ id: str, email: z.string().email().optional(), display_name: z.string().max(255).optional() })
      .strict()
      .optional(),
  })
  .strict();

/** /connection and /connections (both serve the same shapes, as in Nango). */
export function connectionRoutes(): Route[] {
  const routes: Route[] = [];
  routes.push({
    method: "POST",
    pattern: "/connections",
    handler: async ({ clients, req }) => {
      const body = parseWith(importBody, await readJson(req, 256 * 1024), "invalid_body");
      const c = body.credentials;
      const expiresAt =
        c.expires_at === undefined ? 0 : typeof c.expires_at === "number" ? c.expires_at : Date.parse(c.expires_at);
      const { connection } = await clients.connection.createConnection({
        providerConfigKey: body.provider_config_key,
        connectionId: body.connection_id ?? "",
        metadata: body.metadata as JsonObject | undefined,
        connectionConfig: body.connection_config as JsonObject | undefined,
        endUser: body.end_user as JsonObject | undefined,
        credentials: {
          type: "OAUTH2",
          accessToken: c.access_token,
          refreshToken: c.refresh_token ?? "",
          expiresAtMs: BigInt(expiresAt),
          raw: (c.raw ?? {}) as JsonObject,
        },
      });
      if (!connection) throw new Error("createConnection returned no connection");
      return json(presentConnection(connection));
    },
  });
  for (const base of ["/connection", "/connections"]) {
    routes.push(
      {
        method: "GET",
        pattern: base,
        handler: async ({ clients, url }) => {
          const split = splitTags(queryObject(url));
          const q = parseWith(listQuery, split.rest, "invalid_query_params");
          const tags = parseWith(tagFilter, split.tags, "invalid_query_params");
          const limit = q.limit ?? 100;
          const page = q.page ?? 0;
          const res = await clients.connection.listConnections({
            providerConfigKey: q.integrationId ?? "",
            connectionId: q.connectionId ?? "",
            search: q.search ?? "",
            endUserId: q.endUserId ?? "",
            tags,
            limit,
            page,
          });
          return json({
            connections: res.connections.map(presentConnectionListItem),
            pagination: { page, limit, total: res.total, has_more: (page + 1) * limit < res.total },
          });
        },
      },
      {
        method: "GET",
        pattern: `${base}/:connectionId`,
        handler: async ({ clients, url, params }) => {
          const q = parseWith(oneQuery, queryObject(url), "invalid_query_params");
          const { connection } = await clients.connection.getConnection({
            providerConfigKey: q.provider_config_key,
            connectionId: params.connectionId as string,
          });
          if (!connection) throw new Error("getConnection returned no connection");
          return json(presentConnection(connection));
        },
      },
      {
        method: "DELETE",
        pattern: `${base}/:connectionId`,
        handler: async ({ clients, url, params }) => {
          const q = parseWith(deleteQuery, queryObject(url), "invalid_query_params");
          await clients.connection.deleteConnection({
            providerConfigKey: q.provider_config_key,
            connectionId: params.connectionId as string,
          });
          return json({ success: true });
        },
      },
    );
  }
  return routes;
}
