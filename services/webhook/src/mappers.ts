import { create } from "@bufbuild/protobuf";
import {
  type Attempt,
  AttemptSchema,
  DeliveryStatus,
  EndpointSchema,
  type Message,
  MessageSchema,
  type Settings,
  SettingsSchema,
} from "@junction/contracts/webhook/v1/webhook_service_pb";
import { previousSecretInGrace } from "./signing-secrets.ts";
import type {
  AttemptRecord,
  DeliveryStatus as StoredStatus,
  MessageRecord,
  WebhookSettingsRecord,
} from "./store/records.ts";

/** The public view of the settings at `now`: never a secret, only the current one's prefix. */
export function toSettings(record: WebhookSettingsRecord, now: number): Settings {
  return create(SettingsSchema, {
    endpoints: record.endpoints.map((e) =>
      create(EndpointSchema, {
        id: e.id,
        url: e.url,
        enabled: e.enabled,
        disabledReason: e.disabledReason ?? "",
        failingSinceMs: BigInt(e.failingSince ?? 0),
      }),
    ),
    signingSecretPrefix: record.signingSecretPrefix,
    previousSecretValidUntilMs: previousSecretInGrace(record, now)
      ? BigInt(record.previousSecretValidUntil as number)
      : 0n,
  });
}

const STATUS: Record<StoredStatus, DeliveryStatus> = {
  pending: DeliveryStatus.PENDING,
  succeeded: DeliveryStatus.SUCCEEDED,
  failed: DeliveryStatus.FAILED,
  exhausted: DeliveryStatus.EXHAUSTED,
};

/** The stored status of a proto one; undefined for UNSPECIFIED or an unknown value. */
export function fromDeliveryStatus(status: DeliveryStatus): StoredStatus | undefined {
  return (Object.keys(STATUS) as StoredStatus[]).find((k) => STATUS[k] === status);
}

const decoder = new TextDecoder();

/** A message as the API shows it; attempts only when given. */
export function toMessage(m: MessageRecord, attempts?: AttemptRecord[]): Message {
  return create(MessageSchema, {
    id: m.id,
    type: m.type,
    providerConfigKey: m.providerConfigKey,
    connectionId: m.connectionId,
    body: decoder.decode(m.body),
    status: STATUS[m.status],
    attemptCount: m.attemptCount,
    nextAttemptAtMs: BigInt(m.nextAttemptAt ?? 0),
    lastError: m.lastError ?? "",
    createdAtMs: BigInt(m.createdAt),
    notificationId: m.notificationId,
    attempts: (attempts ?? []).map(toAttempt),
  });
}

function toAttempt(a: AttemptRecord): Attempt {
  return create(AttemptSchema, {
    id: a.id,
    endpointId: a.endpointId,
    url: a.url,
    statusCode: a.statusCode,
    latencyMs: BigInt(a.latencyMs),
    responseSnippet: a.responseSnippet,
    error: a.error ?? "",
    atMs: BigInt(a.at),
    number: a.number,
  });
}
