export { createWebhookService } from "./service.ts";
export { createWebhookRuntime, type WebhookRuntime } from "./runtime.ts";
export type { DeliveryWaker, WebhookServiceContext, WebhookServiceDeps } from "./context.ts";
export {
  DEFAULT_DELIVERY_CONFIG,
  DEFAULT_INTAKE_CONFIG,
  type DeliveryConfig,
  type IntakeConfig,
  loadAllowPrivateEndpoints,
  loadDeliveryConfig,
  loadIntakeConfig,
  parseDuration,
} from "./config.ts";
export { derivedMessageId, forwardBody, stableStringify } from "./inbound/forward-message.ts";
export { createHttpSender, type Resolver, type SendRequest, type SendResult } from "./delivery/http-sender.ts";
export { openWebhookStore } from "./open-store.ts";
export type { WebhookDeliveryStore, WebhookServiceStore, WebhookSettingsStore } from "./store/store.ts";
export type {
  AttemptRecord,
  DeliveryStatus,
  EndpointRecord,
  MessageRecord,
  WebhookSettingsRecord,
} from "./store/records.ts";
export { SqliteWebhookStore } from "./store/sqlite-store.ts";
export { changeSettings, currentSigningSecrets, ensureSettings } from "./settings.ts";
export { DEFAULT_GRACE_MS, MAX_GRACE_MS } from "./signing-secrets.ts";
export { MAX_ENDPOINTS } from "./endpoints.ts";
export {
  checkEndpointUrl,
  type EndpointUrlCheck,
  isLoopbackHost,
  isPrivateOrLoopbackHost,
  MAX_ENDPOINT_URL_LENGTH,
} from "./address-policy.ts";
export {
  generateSigningSecret,
  type SignatureHeaders,
  signatureHeaders,
  signNango,
  signStandard,
  type VerifyFailure,
  type VerifyResult,
  verifyStandard,
} from "./signing.ts";
