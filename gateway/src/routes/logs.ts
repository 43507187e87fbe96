import type { Operation } from "@junction/contracts/logs/v1/logs_service_pb";
import { OPERATION_KINDS, OPERATION_STATUSES } from "@junction/platform/operations/operation";
import { z } from "zod";
import { iso, json } from "../http/json.ts";
import { parseWith, queryObject } from "../http/read-json.ts";
import { dataOf, isoOrNull } from "../openapi/route-doc.ts";
import type { Route } from "../router.ts";

const str = z.string().min(1).max(255);
/** ISO-8601 with an offset, or Unix milliseconds. */
const instant = z.union([z.string().datetime({ offset: true }), z.string().regex(/^\d{1,15}$/)]);
// Kind, status and q are checked by the logs service, which answers each with its own code.
const listQuery = z
  .object({
    kind: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(`One of ${OPERATION_KINDS.join(", ")}.`),
    status: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(`One of ${OPERATION_STATUSES.join(", ")}.`),
    integration: str.optional().describe("The integration's id (provider config key)."),
    connection: str.optional().describe("The connection's id."),
    end_user: str.optional().describe("The end user's id."),
    tag: str.optional(),
    from: instant.optional().describe("Operations started at or after (ISO-8601 or Unix ms)."),
    to: instant.optional().describe("Operations started before (ISO-8601 or Unix ms)."),
    q: z.string().max(65_536).optional().describe("Full-text search over titles and messages (256 characters)."),
    limit: z.coerce.number().int().min(1).max(500).optional(),
    cursor: z.string().min(1).max(4096).optional().describe("The previous page's `next_cursor`, same filters."),
  })
  .strict();

const ms = (v: string | undefined) => (v === undefined ? 0n : BigInt(/^\d+$/.test(v) ? v : Date.parse(v)));

const operationAnswer = z
  .object({
    id: z.string(),
    kind: z.enum(OPERATION_KINDS),
    status: z.enum(OPERATION_STATUSES),
    started_at: isoOrNull,
    duration_ms: z.number(),
    integration: z.string().nullable(),
    connection: z.string().nullable(),
    end_user: z.string().nullable(),
    tags: z.array(z.string()),
    title: z.string(),
    message_count: z.number().int(),
    count: z
      .number()
      .int()
      .describe("How many calls or notifications the operation stands for: 1, or a total's count."),
    latency_ms: z
      .object({ min: z.number(), max: z.number(), mean: z.number() })
      .nullable()
      .describe("A total's latency (a receipt's time) over its calls; null for an operation of one (see duration_ms)."),
    period: z
      .object({ start: isoOrNull, end: isoOrNull })
      .nullable()
      .describe("A total's period (its minute, or the part of it before a flush); null for one call."),
  })
  .meta({ id: "Operation" });
const messageAnswer = z.object({
  at: isoOrNull,
  level: z.enum(["debug", "info", "warn", "error"]),
  text: z.string(),
  fields: z.record(z.string(), z.unknown()).nullable(),
});

function present(o: Operation) {
  return {
    id: o.id,
    kind: o.kind,
    status: o.status,
    started_at: iso(o.startedAtMs),
    duration_ms: Number(o.durationMs),
    integration: o.integration || null,
    connection: o.connection || null,
    end_user: o.endUser || null,
    tags: o.tags,
    title: o.title,
    message_count: o.messageCount,
    ...totalsOf(o),
  };
}

/**
 * A total of many (the successful proxy calls or notification receipts of one key in a minute): count,
 * latency and period.
 */
function totalsOf(o: Operation) {
  const t = o.totals;
  if (!t) return { count: 1, latency_ms: null, period: null };
  const count = Number(t.count);
  const start = Number(o.startedAtMs);
  return {
    count,
    latency_ms: { min: t.latencyMinMs, max: t.latencyMaxMs, mean: count ? t.latencySumMs / count : 0 },
    period: { start: iso(start), end: iso(start + Number(o.durationMs)) },
  };
}

/** The operations log: every operation of every kind, filtered, searched, paged; one with its messages. */
export function logRoutes(): Route[] {
  return [listOperationsRoute(), getOperationRoute()];
}

/** GET /logs/operations: the log, newest first, filtered and paged. */
function listOperationsRoute(): Route {
  return {
    method: "GET",
    pattern: "/logs/operations",
    handler: async ({ clients, url }) => {
      const q = parseWith(listQuery, queryObject(url), "invalid_query_params", "query");
      const res = await clients.logs.listOperations({
        kind: q.kind ?? "",
        status: q.status ?? "",
        integration: q.integration ?? "",
        connection: q.connection ?? "",
        endUser: q.end_user ?? "",
        tag: q.tag ?? "",
        fromMs: ms(q.from),
        toMs: ms(q.to),
        q: q.q ?? "",
        limit: q.limit ?? 50,
        cursor: q.cursor ?? "",
      });
      return json({ data: res.operations.map(present), next_cursor: res.nextCursor || null });
    },
    doc: {
      summary: "List operations",
      description:
        "The operations log, newest first: authorizations, token refreshes, proxy calls, notifications, " +
        "deliveries, sync and action runs, lifecycle hooks, channel calls. Successful proxy calls are " +
        "per-minute totals (`count`, `latency_ms`, `period`) per integration, connection, method and " +
        "status, and successful notification receipts per integration and outcome; failures are one " +
        "operation each. Filters combine; `q` searches " +
        "the titles and messages (every word, as a prefix). Page with `cursor` = the previous page's " +
        "`next_cursor`, with the same filters.",
      tags: ["Logs"],
      query: listQuery,
      responses: { 200: z.object({ data: z.array(operationAnswer), next_cursor: z.string().nullable() }) },
      errors: [
        "unknown_kind",
        "unknown_status",
        "search_too_long",
        "invalid_period",
        "period_too_long",
        "invalid_cursor",
        "cursor_filter_mismatch",
      ],
    },
  };
}

/** GET /logs/operations/:id: one operation with its messages. */
function getOperationRoute(): Route {
  return {
    method: "GET",
    pattern: "/logs/operations/:id",
    handler: async ({ clients, params }) => {
      const { operation } = await clients.logs.getOperation({ id: params.id ?? "" });
      if (!operation) throw new Error("the logs service answered without the operation");
      const messages = operation.messages.map((m) => ({
        at: iso(m.atMs),
        level: m.level,
        text: m.text,
        fields: m.fieldsJson ? (JSON.parse(m.fieldsJson) as Record<string, unknown>) : null,
      }));
      return json({ data: { ...present(operation), messages } });
    },
    doc: {
      summary: "Get an operation",
      description: "With its messages: script logs, delivery attempts, the upstream's answers.",
      tags: ["Logs"],
      params: { id: "The operation's id (op_...)." },
      responses: { 200: dataOf(operationAnswer.extend({ messages: z.array(messageAnswer) })) },
      errors: ["unknown_operation"],
    },
  };
}
