import { type Attempt, DeliveryStatus, type Message } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { z } from "zod";
import { iso } from "../http/json.ts";
import { isoOrNull } from "../openapi/route-doc.ts";

/** A delivery status's name in the API, and the status it names. */
export const STATUSES = {
  pending: DeliveryStatus.PENDING,
  succeeded: DeliveryStatus.SUCCEEDED,
  failed: DeliveryStatus.FAILED,
  exhausted: DeliveryStatus.EXHAUSTED,
} as const;
export type StatusName = keyof typeof STATUSES;
export const STATUS_NAMES = Object.keys(STATUSES) as [StatusName, ...StatusName[]];
const statusName = (s: DeliveryStatus) => STATUS_NAMES.find((k) => STATUSES[k] === s) ?? "pending";

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
export function presentMessage(m: Message | undefined, withAttempts: boolean) {
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

/** An attempt as presentAttempt answers it. */
export const attemptAnswer = z
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

/** A message as presentMessage answers it (without its attempts). */
export const messageAnswer = z
  .object({
    id: z.string(),
    type: z.string(),
    provider_config_key: z.string().nullable(),
    connection_id: z.string().nullable(),
    notification_id: z.string().nullable(),
    status: z.enum(STATUS_NAMES),
    attempt_count: z.number().int(),
    next_attempt_at: isoOrNull,
    last_error: z.string().nullable(),
    created_at: isoOrNull,
    body: z.string().describe("The exact string that was signed and sent."),
  })
  .meta({ id: "WebhookMessage" });
