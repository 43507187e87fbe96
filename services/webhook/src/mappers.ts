import { create } from "@bufbuild/protobuf";
import { EndpointSchema, type Settings, SettingsSchema } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { previousSecretInGrace } from "./signing-secrets.ts";
import type { WebhookSettingsRecord } from "./store/records.ts";

/** The public view of the settings at `now`: never a secret, only the current one's prefix. */
export function toSettings(record: WebhookSettingsRecord, now: number): Settings {
  return create(SettingsSchema, {
    endpoints: record.endpoints.map((e) => create(EndpointSchema, { id: e.id, url: e.url, enabled: e.enabled })),
    signingSecretPrefix: record.signingSecretPrefix,
    previousSecretValidUntilMs: previousSecretInGrace(record, now)
      ? BigInt(record.previousSecretValidUntil as number)
      : 0n,
  });
}
