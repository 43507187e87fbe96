import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ListConnectionsRequestSchema } from "@junction/contracts/connection/v1/connection_service_pb";
import { z } from "zod";
import { parseWith, queryObject } from "../http/read-json.ts";

const str = z.string().min(1).max(255);
/** Nango's tag keys: a letter, then letters, digits, `_ - . /`; at most 64 characters. */
const tagKey = z
  .string()
  .regex(/^[a-zA-Z][a-zA-Z0-9_\-./]*$/, "must start with a letter, then letters, digits, _ - . or /")
  .max(64);

export const listQuery = z
  .object({
    connectionId: str.optional(),
    // Nango's `integrationId`: one integration id, or several separated by commas.
    integrationId: z
      .string()
      .max(4096)
      .transform((v) => v.split(",").map((k) => k.trim()))
      .pipe(z.array(str).min(1).max(100))
      .optional(),
    search: str.optional(),
    endUserId: str.optional(),
    endUserOrganizationId: str.optional(),
    tags: z
      .record(tagKey, str)
      .refine((t) => Object.keys(t).length <= 10, "at most 10 tags")
      .transform((t) => Object.fromEntries(Object.entries(t).map(([k, v]) => [k.toLowerCase(), v])))
      .optional(),
    // Junction extension: Nango returns everything at once; Junction pages (default 100, at most 2000).
    limit: z.coerce.number().int().min(1).max(2000).optional(),
    page: z.coerce.number().int().min(0).optional(),
  })
  .strict();

type ListRequest = MessageInitShape<typeof ListConnectionsRequestSchema>;

/**
 * The list's query (Nango's parameters; `tags[key]=value` as deep-object keys, every tag required) as a
 * ListConnections request.
 */
export function readConnectionListQuery(url: URL): { request: ListRequest; limit: number; page: number } {
  const raw: Record<string, unknown> = {};
  const tags: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(queryObject(url))) {
    const tag = /^tags\[(.*)\]$/.exec(k);
    if (tag) tags[tag[1] as string] = v;
    else raw[k] = v;
  }
  if (Object.keys(tags).length > 0) raw.tags = tags;
  const q = parseWith(listQuery, raw, "invalid_query_params", "query");
  const limit = q.limit ?? 100;
  const page = q.page ?? 0;
  const keys = q.integrationId ?? [];
  const request: ListRequest = {
    providerConfigKey: keys.length === 1 ? keys[0] : "",
    providerConfigKeys: keys.length > 1 ? keys : [],
    connectionId: q.connectionId ?? "",
    search: q.search ?? "",
    endUserId: q.endUserId ?? "",
    endUserOrganizationId: q.endUserOrganizationId ?? "",
    tags: q.tags ?? {},
    limit,
    page,
  };
  return { request, limit, page };
}
