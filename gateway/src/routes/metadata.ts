import { MetadataWriteMode } from "@junction/contracts/connection/v1/connection_service_pb";
import type { JsonObject } from "@bufbuild/protobuf";
import { MAX_METADATA_BYTES } from "@junction/public-api/limits";
import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import type { Route } from "../router.ts";
import type { RouteDoc } from "../openapi/route-doc.ts";

/** The connection service holds metadata itself to this size (set or merged; also from scripts). */
const BODY_LIMIT = MAX_METADATA_BYTES;

const bodySchema = z
  .object({
    connection_id: z.union([z.string().min(1).max(255), z.array(z.string().min(1).max(255)).min(1).max(1000)]),
    provider_config_key: z.string().min(1).max(255),
    metadata: z.record(z.string(), z.unknown()),
  })
  .strict();

const noQuery = z.object({}).strict();

const DOC_BY_METHOD: Record<"POST" | "PATCH", Pick<RouteDoc, "summary" | "description">> = {
  POST: { summary: "Set connection metadata", description: "Replaces the metadata of one connection or a list." },
  PATCH: { summary: "Update connection metadata", description: "Merges (shallow) into one connection's or a list's." },
};

/**
 * Connection metadata, at the spec's path (/connection/metadata) and Nango's current one
 * (/connections/metadata): POST sets (replaces, 201), PATCH updates (shallow merge, 200). One id or a
 * list, all or nothing. The response echoes the request, as Nango's does.
 */
export function metadataRoutes(): Route[] {
  const routes: Route[] = [];
  for (const base of ["/connection/metadata", "/connections/metadata"]) {
    for (const [method, mode, status] of [
      ["POST", MetadataWriteMode.SET, 201],
      ["PATCH", MetadataWriteMode.UPDATE, 200],
    ] as const) {
      routes.push({
        method,
        pattern: base,
        handler: async ({ clients, req, url }) => {
          parseWith(noQuery, queryObject(url), "invalid_query_params", "query");
          const body = parseWith(bodySchema, await readJson(req, BODY_LIMIT), "invalid_body", "body");
          const ids = Array.isArray(body.connection_id) ? body.connection_id : [body.connection_id];
          await clients.connection.writeMetadata({
            providerConfigKey: body.provider_config_key,
            connectionIds: ids,
            metadata: body.metadata as JsonObject,
            mode,
          });
          return json(body, status);
        },
        doc: {
          ...DOC_BY_METHOD[method],
          tags: ["Connections"],
          query: noQuery,
          body: bodySchema,
          responses: { [status]: bodySchema.describe("The request, echoed (as Nango does).") },
          errors: ["unknown_provider_config", "unknown_connection", "invalid_metadata", "invalid_request"],
        },
      });
    }
  }
  return routes;
}
