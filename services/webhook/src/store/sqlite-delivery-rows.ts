import type { AttemptRecord, DeliveryStatus, MessageRecord } from "./records.ts";

// The delivery store's rows on SQLite and their mapping to records (sqlite-delivery-store.ts).

export interface MessageRow {
  id: string;
  environment_id: string;
  type: string;
  provider_config_key: string;
  connection_id: string;
  notification_id: string;
  /** '' when none. */
  target_url: string;
  body: Uint8Array;
  status: string;
  attempt_count: number;
  round_attempts: number;
  next_attempt_at: number | null;
  last_error: string | null;
  delivered_endpoint_ids: string;
  lease_token: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
}

export interface AttemptRow {
  id: string;
  message_id: string;
  endpoint_id: string;
  url: string;
  status_code: number;
  latency_ms: number;
  response_snippet: string;
  error: string | null;
  at: number;
  number: number;
}

export function messageToRow(m: MessageRecord): MessageRow {
  return {
    id: m.id,
    environment_id: m.environmentId,
    type: m.type,
    provider_config_key: m.providerConfigKey,
    connection_id: m.connectionId,
    notification_id: m.notificationId,
    target_url: m.targetUrl ?? "",
    body: m.body,
    status: m.status,
    attempt_count: m.attemptCount,
    round_attempts: m.roundAttempts,
    next_attempt_at: m.nextAttemptAt,
    last_error: m.lastError,
    delivered_endpoint_ids: JSON.stringify(m.deliveredEndpointIds),
    lease_token: m.leaseToken,
    lease_until: m.leaseUntil,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

export function rowToMessage(r: MessageRow): MessageRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    type: r.type,
    providerConfigKey: r.provider_config_key,
    connectionId: r.connection_id,
    notificationId: r.notification_id,
    ...(r.target_url ? { targetUrl: r.target_url } : {}),
    body: new Uint8Array(r.body),
    status: r.status as DeliveryStatus,
    attemptCount: r.attempt_count,
    roundAttempts: r.round_attempts,
    nextAttemptAt: r.next_attempt_at,
    lastError: r.last_error,
    deliveredEndpointIds: JSON.parse(r.delivered_endpoint_ids) as string[],
    leaseToken: r.lease_token,
    leaseUntil: r.lease_until,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function attemptToRow(a: AttemptRecord): AttemptRow {
  return {
    id: a.id,
    message_id: a.messageId,
    endpoint_id: a.endpointId,
    url: a.url,
    status_code: a.statusCode,
    latency_ms: a.latencyMs,
    response_snippet: a.responseSnippet,
    error: a.error,
    at: a.at,
    number: a.number,
  };
}

export function rowToAttempt(r: AttemptRow): AttemptRecord {
  return {
    id: r.id,
    messageId: r.message_id,
    endpointId: r.endpoint_id,
    url: r.url,
    statusCode: r.status_code,
    latencyMs: r.latency_ms,
    responseSnippet: r.response_snippet,
    error: r.error,
    at: r.at,
    number: r.number,
  };
}
