export { createConnectionService } from "./service.ts";
export type { ConnectionServiceDeps } from "./context.ts";
export { openConnectionStore } from "./open-store.ts";
export { ProviderCatalog } from "./providers/catalog.ts";
export type { ProviderTemplate } from "@junction/providers";
export { emailAddressHash } from "./email-hash.ts";
export { calendarIdFromUri } from "@junction/providers";
export { matchNotification } from "./match-notification.ts";
export { openCredentials, sealCredentials, type StoredCredentials } from "./credentials.ts";
export {
  DEFAULT_OAUTH_SETTINGS,
  loadOAuthSettings,
  type OAuthSettings,
  type TestCredential,
} from "./oauth/oauth-settings.ts";
export {
  type ConnectionSettings,
  connectionSettingsSchema,
  loadConnectionSettings,
} from "./connection-settings.ts";
export { type RekeyCounts, rekeyConnectionSecrets } from "./rekey.ts";
export {
  type AbandonedAuthorizationSweeps,
  startAbandonedAuthorizationSweeps,
  sweepAbandonedAuthorizations,
} from "./oauth/abandoned-authorizations.ts";
