import { type Attempt, DeliveryStatus, type Message } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { z } from "zod";
import { iso, json } from "../http/json.ts";
import { parseWith, queryObject, readJson } from "../http/read-json.ts";
import { dataOf, isoOrNull } from "../openapi/route-doc.ts";
import type { Route } from "../router.ts";
import { presentSettings, settingsAnswer } from "./webhook-settings-answer.ts";

const STATUSES = {
  pending: DeliveryStatus.PENDING,
  succeeded: DeliveryStatus.SUCCEEDED,
  failed: DeliveryStatus.FAILED,
  exhausted: DeliveryStatus.EXHAUSTED,
} as const;
type StatusName = keyof typeof STATUSES;
const statusName = (s: DeliveryStatus) =>
  (Object.keys(STATUSES) as StatusName[]).find((k) => STATUSES[k] === s) ?? "pending";

const str = z.string().min(1).max(255);
const listQuery = z
  .object({
    provider_config_key: str.optional(),
    connection_id: str.optional(),
    status: z.enum(Object.keys(STATUSES) as [StatusName, ...StatusName[]]).optional(),
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

function presentAttempt(a: Attempt) {
  return {
    id: a.id,
    number: a.number,
    endpoint_id: a.endpointId,
    url: a.url,
    status_code: a.statusCode || null,
    latency_ms: Number(a.latencyMs),
    response_snippet: a.responseSnippet,
    error: a.error || null,
    at: iso(a.atMs),
  };
}

/** A message of the delivery log; `body` is the exact string that was signed and sent. */
function presentMessage(m: Message | undefined, withAttempts: boolean) {
  if (!m) return null;
  return {
    id: m.id,
    type: m.type,
    provider_config_key: m.providerConfigKey || null,
    connection_id: m.connectionId || null,
    notification_id: m.notificationId || null,
    status: statusName(m.status),
    attempt_count: m.attemptCount,
    next_attempt_at: iso(m.nextAttemptAtMs),
    last_error: m.lastError || null,
    created_at: iso(m.createdAtMs),
    body: m.body,
    ...(withAttempts ? { attempts: m.attempts.map(presentAttempt) } : {}),
  };
}

const attemptAnswer = z
  .object({
    id: z.string(),
    number: z.number().int(),
    endpoint_id: z.string(),
    url: z.string(),
    status_code: z.number().int().nullable(),
    latency_ms: z.number(),
    response_snippet: z.string(),
    error: z.string().nullable(),
    at: isoOrNull,
  })
  .meta({ id: "WebhookAttempt" });
const messageAnswer = z
  .object({
    id: z.string(),
    type: z.string(),
    provider_config_key: z.string().nullable(),
    connection_id: z.string().nullable(),
    notification_id: z.string().nullable(),
    status: z.enum(Object.keys(STATUSES) as [StatusName, ...StatusName[]]),
    attempt_count: z.number().int(),
    next_attempt_at: isoOrNull,
    last_error: z.string().nullable(),
    created_at: isoOrNull,
    body: z.string().describe("The exact string that was signed and sent."),
  })
  .meta({ id: "WebhookMessage" });
const testAnswer = z
  .object({
    ok: z.boolean().describe("Whether the endpoint answered 2xx in time."),
    message_id: z.string().describe("The webhook-id the test was signed with."),
    url: z.string(),
    status_code: z.number().int().nullable().describe("null: no answer (timeout, refused)."),
    latency_ms: z.number(),
    response_snippet: z.string().describe("The first bytes of the endpoint's answer."),
    error: z.string().nullable(),
    body: z.string().describe("The exact string that was signed and sent."),
  })
  .meta({ id: "WebhookEndpointTest" });
const messageParam = { id: "The message's id (msg_...)." };

/** The delivery log (/webhook-messages), replays, and re-enabling an automatically disabled endpoint. */
export function deliveryRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/webhook-messages",
      handler: async ({ clients, url }) => {
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
      },
      doc: {
        summary: "List webhook messages",
        description: "The delivery log, newest first; page with `cursor` = the previous page's `next_cursor`.",
        tags: ["Webhooks"],
        query: listQuery,
        responses: { 200: z.object({ data: z.array(messageAnswer), next_cursor: z.string().nullable() }) },
        errors: ["invalid_id"],
      },
    },
    {
      method: "GET",
      pattern: "/webhook-messages/:id",
      handler: async ({ clients, params }) => {
        const res = await clients.webhook.getMessage({ id: params.id ?? "" });
        return json({ data: presentMessage(res.message, true) });
      },
      doc: {
        summary: "Get a webhook message",
        description: "With its delivery attempts.",
        tags: ["Webhooks"],
        params: messageParam,
        responses: { 200: dataOf(messageAnswer.extend({ attempts: z.array(attemptAnswer) })) },
        errors: ["invalid_id", "unknown_message"],
      },
    },
    {
      method: "POST",
      pattern: "/webhook-messages/replay-failed",
      handler: async ({ clients, req }) => {
        const body = parseWith(replayFailedBody, await readJson(req, 4096), "invalid_body", "body");
        const since = typeof body.since === "number" ? body.since : Date.parse(body.since);
        const res = await clients.webhook.replayFailed({ sinceMs: BigInt(since) });
        return json({ data: { replayed: res.replayed } }, 202);
      },
      doc: {
        summary: "Replay failed webhook messages",
        description: "Every failed or exhausted message since a time (ISO-8601 with an offset, or Unix milliseconds).",
        tags: ["Webhooks"],
        body: replayFailedBody,
        responses: { 202: dataOf(z.object({ replayed: z.number().int() })) },
        errors: ["invalid_request"],
      },
    },
    {
      method: "POST",
      pattern: "/webhook-messages/:id/replay",
      handler: async ({ clients, params }) => {
        const res = await clients.webhook.replayMessage({ id: params.id ?? "" });
        return json({ data: presentMessage(res.message, false) }, 202);
      },
      doc: {
        summary: "Replay a webhook message",
        tags: ["Webhooks"],
        params: messageParam,
        responses: { 202: dataOf(messageAnswer) },
        errors: ["invalid_id", "unknown_message"],
      },
    },
    {
      method: "POST",
      pattern: "/webhook-settings/endpoints/:id/enable",
      handler: async ({ clients, params }) => {
        const res = await clients.webhook.enableEndpoint({ id: params.id ?? "" });
        return json({ data: presentSettings(res.settings) });
      },
      doc: {
        summary: "Re-enable a webhook endpoint",
        description: "One that was disabled automatically after failing.",
        tags: ["Webhooks"],
        params: { id: "The endpoint's id (ep_...)." },
        responses: { 200: dataOf(settingsAnswer) },
        errors: ["invalid_id", "unknown_endpoint", "settings_conflict"],
      },
    },
    {
      method: "POST",
      pattern: "/webhook-settings/endpoints/:id/disable",
      handler: async ({ clients, params }) => {
        const res = await clients.webhook.disableEndpoint({ id: params.id ?? "" });
        return json({ data: presentSettings(res.settings) });
      },
      doc: {
        summary: "Disable a webhook endpoint",
        description:
          "No delivery is attempted to it until it is enabled again. Messages are not held for it: one that " +
          'has no enabled endpoint left ends `exhausted` ("every webhook endpoint is disabled"), and ' +
          "`POST /webhook-messages/replay-failed` sends it once an endpoint is enabled.",
        tags: ["Webhooks"],
        params: { id: "The endpoint's id (ep_...)." },
        responses: { 200: dataOf(settingsAnswer) },
        errors: ["invalid_id", "unknown_endpoint", "settings_conflict"],
      },
    },
    {
      method: "POST",
      pattern: "/webhook-settings/endpoints/:id/test",
      handler: async ({ clients, params }) => {
        const r = await clients.webhook.testEndpoint({ id: params.id ?? "" });
        return json({
          data: {
            ok: r.error === "",
            message_id: r.messageId,
            url: r.url,
            status_code: r.statusCode === 0 ? null : r.statusCode,
            latency_ms: Number(r.latencyMs),
            response_snippet: r.responseSnippet,
            error: r.error || null,
            body: r.body,
          },
        });
      },
      doc: {
        summary: "Send a test message to a webhook endpoint",
        description:
          "Posts a signed message of type `test` to the endpoint (enabled or not) and answers what it " +
          "answered. The test is not recorded in the delivery log and never retried.",
        tags: ["Webhooks"],
        params: { id: "The endpoint's id (ep_...)." },
        responses: { 200: dataOf(testAnswer) },
        errors: ["invalid_id", "unknown_endpoint"],
      },
    },
  ];
}
