export { createWebhookService } from "./service.ts";
export type { WebhookServiceDeps } from "./context.ts";
export { openWebhookStore } from "./open-store.ts";
export type { WebhookServiceStore, WebhookSettingsStore } from "./store/store.ts";
export type { EndpointRecord, WebhookSettingsRecord } from "./store/records.ts";
export { SqliteWebhookStore } from "./store/sqlite-store.ts";
export { MongoWebhookStore } from "./store/mongo-store.ts";
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
