import { DeliveryStatus } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import { dataOf, type RouteDoc } from "../openapi/route-doc.ts";
import type { Route, RouteContext } from "../router.ts";
import { attemptAnswer, messageAnswer, presentMessage, STATUS_NAMES, STATUSES } from "./delivery-answer.ts";
import { webhookEndpointRoutes } from "./webhook-endpoint-routes.ts";

const str = z.string().min(1).max(255);
const listQuery = z
  .object({
    provider_config_key: str.optional(),
    connection_id: str.optional(),
    status: z.enum(STATUS_NAMES).optional(),
    type: z.string().min(1).max(64).optional(),
    unmatched: z.enum(["true", "false"]).optional(),
    limit: z.coerce.number().int().min(1).max(500).optional(),
    cursor: str.optional(),
  })
  .strict();

const replayFailedBody = z
  .object({
    // ISO-8601 with an offset, or Unix milliseconds.
    since: z.union([z.string().datetime({ offset: true }), z.number().int().min(0)]),
  })
  .strict();

const messageParam = { id: "The message's id (msg_...)." };

/** The delivery log (/webhook-messages), replays, and re-enabling an automatically disabled endpoint. */
export function deliveryRoutes(): Route[] {
  return [
    { method: "GET", pattern: "/webhook-messages", handler: listMessages, doc: listDoc },
    { method: "GET", pattern: "/webhook-messages/:id", handler: getMessage, doc: getDoc },
    { method: "POST", pattern: "/webhook-messages/replay-failed", handler: replayFailed, doc: replayFailedDoc },
    { method: "POST", pattern: "/webhook-messages/:id/replay", handler: replayMessage, doc: replayDoc },
    ...webhookEndpointRoutes(),
  ];
}

async function listMessages({ clients, url }: RouteContext): Promise<Response> {
  const q = parseWith(listQuery, queryObject(url), "invalid_query_params", "query");
  const res = await clients.webhook.listMessages({
    providerConfigKey: q.provider_config_key ?? "",
    connectionId: q.connection_id ?? "",
    status: q.status ? STATUSES[q.status] : DeliveryStatus.UNSPECIFIED,
    type: q.type ?? "",
    unmatchedOnly: q.unmatched === "true",
    limit: q.limit ?? 50,
    beforeId: q.cursor ?? "",
  });
  return json({
    data: res.messages.map((m) => presentMessage(m, false)),
    next_cursor: res.nextBeforeId || null,
  });
}

const listDoc: RouteDoc = {
  summary: "List webhook messages",
  description: "The delivery log, newest first; page with `cursor` = the previous page's `next_cursor`.",
  tags: ["Webhooks"],
  query: listQuery,
  responses: { 200: z.object({ data: z.array(messageAnswer), next_cursor: z.string().nullable() }) },
  errors: ["invalid_id"],
};

async function getMessage({ clients, params }: RouteContext): Promise<Response> {
  const res = await clients.webhook.getMessage({ id: params.id ?? "" });
  return json({ data: presentMessage(res.message, true) });
}

const getDoc: RouteDoc = {
  summary: "Get a webhook message",
  description: "With its delivery attempts.",
  tags: ["Webhooks"],
  params: messageParam,
  responses: { 200: dataOf(messageAnswer.extend({ attempts: z.array(attemptAnswer) })) },
  errors: ["invalid_id", "unknown_message"],
};

async function replayFailed({ clients, req }: RouteContext): Promise<Response> {
  const body = parseWith(replayFailedBody, await readJson(req, 4096), "invalid_body", "body");
  const since = typeof body.since === "number" ? body.since : Date.parse(body.since);
  const res = await clients.webhook.replayFailed({ sinceMs: BigInt(since) });
  return json({ data: { replayed: res.replayed } }, 202);
}

const replayFailedDoc: RouteDoc = {
  summary: "Replay failed webhook messages",
  description: "Every failed or exhausted message since a time (ISO-8601 with an offset, or Unix milliseconds).",
  tags: ["Webhooks"],
  body: replayFailedBody,
  responses: { 202: dataOf(z.object({ replayed: z.number().int() })) },
  errors: ["invalid_request"],
};

async function replayMessage({ clients, params }: RouteContext): Promise<Response> {
  const res = await clients.webhook.replayMessage({ id: params.id ?? "" });
  return json({ data: presentMessage(res.message, false) }, 202);
}

const replayDoc: RouteDoc = {
  summary: "Replay a webhook message",
  tags: ["Webhooks"],
  params: messageParam,
  responses: { 202: dataOf(messageAnswer) },
  errors: ["invalid_id", "unknown_message"],
};
