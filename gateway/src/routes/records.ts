import { invalidArgument } from "@junction/platform";
import { z } from "zod";
import { iso, json } from "../http/json.ts";
import { dataOf, isoOrNull, type RouteDoc } from "../openapi/route-doc.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import type { Route, RouteContext } from "../router.ts";

/** A model, variant or id name. */
export const name = z.string().min(1).max(255);
const actions = ["added", "updated", "deleted"] as const;
/** Nango's query of GET /records (strict). */
const listQuery = z
  .object({
    model: name,
    variant: name.optional(),
    cursor: z.string().min(1).max(1000).optional(),
    limit: z.coerce.number().int().min(1).max(10_000).optional(),
    filter: z
      .string()
      .transform((v) => v.split(",").map((a) => a.trim().toLowerCase()))
      .pipe(z.array(z.enum(actions)))
      .optional()
      .describe("added, updated, deleted, or several separated by commas: their union."),
    modified_after: z.iso.datetime({ offset: true }).optional(),
    delta: z.iso.datetime({ offset: true }).optional().describe("Nango's older name of modified_after."),
    ids: z
      .union([name, z.array(name).max(100)])
      .transform((v) => (Array.isArray(v) ? v : [v]))
      .optional()
      .describe("Only these record ids (repeat the parameter)."),
  })
  .strict();
const pruneBody = z
  .object({
    model: name,
    until_cursor: z.string().min(1).max(1000),
    limit: z.number().int().min(1).max(10_000).optional(),
    variant: name.optional(),
  })
  .strict();
/** The headers naming the connection (Nango's). */
export const connectionHeaders = z.object({
  "connection-id": z.string().describe("The connection's id."),
  "provider-config-key": z.string().describe("The integration's id."),
});
const metadata = z.object({
  first_seen_at: z.string(),
  last_modified_at: z.string(),
  last_action: z.enum(["ADDED", "UPDATED", "DELETED"]),
  deleted_at: z.string().nullable(),
  cursor: z.string(),
  pruned_at: z.string().nullable(),
});
const listAnswer = z.object({
  next_cursor: z.string().nullable(),
  records: z.array(z.object({ id: z.string(), _nango_metadata: metadata }).loose()),
});
const modelsAnswer = z.array(
  z.object({ model: z.string(), variant: z.string(), count: z.number().int(), last_modified_at: isoOrNull }),
);
const pruneAnswer = z.object({ count: z.number(), has_more: z.boolean() });
const ERRORS = ["invalid_headers", "unknown_connection", "unknown_provider_config", "invalid_cursor"] as const;

/** The Connection-Id and Provider-Config-Key headers (Nango: 400 invalid_headers without them). */
export function connectionOf(req: Request) {
  const connectionId = req.headers.get("connection-id")?.trim();
  const providerConfigKey = req.headers.get("provider-config-key")?.trim();
  const missing = [...(connectionId ? [] : ["connection-id"]), ...(providerConfigKey ? [] : ["provider-config-key"])];
  if (missing.length) {
    throw invalidArgument(
      "invalid_headers",
      `Missing the ${missing.join(" and ")} header${missing.length > 1 ? "s" : ""}.`,
      missing.map((path) => ({ location: "header", path, message: "is required" })),
    );
  }
  return { connectionId: connectionId as string, providerConfigKey: providerConfigKey as string };
}

/**
 * GET /records (the Node SDK sends /records/) and PATCH /records/prune: a connection's records of a
 * model, in Nango's shapes. The records come from the scripts service as JSON text,
 * put into the answer as they are.
 */
export function recordRoutes(): Route[] {
  return [
    { method: "GET", pattern: "/records/models", handler: listModels, doc: modelsDoc },
    { method: "GET", pattern: "/records", handler: listRecords, doc: listDoc },
    { method: "PATCH", pattern: "/records/prune", handler: pruneRecords, doc: pruneDoc },
  ];
}

async function listModels({ req, clients }: RouteContext): Promise<Response> {
  const res = await clients.scripts.listRecordModels(connectionOf(req));
  return json({
    data: res.models.map((m) => ({
      model: m.model,
      variant: m.variant,
      count: Number(m.count),
      last_modified_at: iso(m.lastModifiedAtMs),
    })),
  });
}

const modelsDoc: RouteDoc = {
  summary: "List a connection's record models with their counts",
  description:
    "Junction's own (Nango has none): each model a sync wrote for the connection, per variant, with the records kept (deleted ones included) and the last change.",
  tags: ["Records"],
  headers: connectionHeaders,
  responses: { 200: dataOf(modelsAnswer) },
  errors: [...ERRORS],
};

async function listRecords({ req, url, clients }: RouteContext): Promise<Response> {
  const scope = connectionOf(req);
  const q = parseWith(listQuery, queryObject(url), "invalid_query_params", "query");
  const after = q.modified_after ?? q.delta;
  const res = await clients.scripts.listRecords({
    ...scope,
    model: q.model,
    variant: q.variant ?? "",
    cursor: q.cursor ?? "",
    limit: q.limit ?? 100,
    actions: [...new Set(q.filter ?? [])].map((a) => a.toUpperCase()),
    ...(after ? { modifiedAfterMs: BigInt(Date.parse(after)) } : {}),
    ids: q.ids ?? [],
  });
  const next = res.nextCursor ? JSON.stringify(res.nextCursor) : "null";
  return new Response(`{"next_cursor":${next},"records":${res.recordsJson}}`, {
    headers: { "content-type": "application/json" },
  });
}

const listDoc: RouteDoc = {
  summary: "List a connection's records of a model",
  description:
    "Nango's GET /records (also at /records/): ordered by last modification then id, each record its payload, `id` and `_nango_metadata`; deleted records keep their payload. `filter` combinations are a union (Nango's are not). A model never written answers no records; an unknown connection answers 400 `unknown_connection`, as Nango.",
  tags: ["Records"],
  headers: connectionHeaders,
  query: listQuery,
  responses: { 200: listAnswer },
  errors: [...ERRORS],
};

async function pruneRecords({ req, clients }: RouteContext): Promise<Response> {
  const scope = connectionOf(req);
  const body = parseWith(pruneBody, await readJson(req, 16 * 1024), "invalid_body", "body");
  const res = await clients.scripts.pruneRecords({
    ...scope,
    model: body.model,
    variant: body.variant ?? "",
    untilCursor: body.until_cursor,
    limit: body.limit ?? 0,
  });
  return json({ count: Number(res.count), has_more: res.hasMore });
}

const pruneDoc: RouteDoc = {
  summary: "Prune records' payloads up to a cursor",
  description:
    "Nango's PATCH /records/prune: the payloads of the model's records up to and including `until_cursor` are removed (at most `limit`, 10,000 by default), `pruned_at` is set and their order is kept; a later save of the same record restores its payload. `has_more`: call again.",
  tags: ["Records"],
  headers: connectionHeaders,
  body: pruneBody,
  responses: { 200: pruneAnswer },
  errors: [...ERRORS],
};
