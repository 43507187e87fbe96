import type { ChannelAdapter, MetadataKeyRule, ProviderAdapter } from "./adapter.ts";
import type { WebhookHeaderNames } from "./provider-template.ts";
import { docusign } from "./docusign/adapter.ts";
import { CATALOGUE } from "./catalogue.ts";
import { adapterFromDefinition } from "./definition/defined-provider.ts";
import { googleCalendar } from "./google-calendar/adapter.ts";
import { googleDrive } from "./google-drive/adapter.ts";
import { googleMail } from "./google-mail/adapter.ts";
import { googleSheet } from "./google-sheet/adapter.ts";
import { microsoftOutlookCalendar } from "./microsoft-outlook-calendar/adapter.ts";
import { microsoftTeams } from "./microsoft-teams/adapter.ts";
import { oneDrive } from "./one-drive/adapter.ts";
import { outlook } from "./outlook/adapter.ts";

export type {
  AccountEmailReader,
  AccountEmailResult,
  AdapterFetch,
  ChannelAdapter,
  ChannelCallFacts,
  ConsentGuidance,
  GuidanceSensitivity,
  ChannelCreation,
  ChannelRef,
  InboundNotification,
  IntegrationSetting,
  NotificationAdapter,
  NotificationItem,
  NotificationReading,
  MetadataKeyRule,
  ProviderAdapter,
  ReadContext,
  ScriptTemplates,
  UpstreamCall,
} from "./adapter.ts";
export type { ProviderTemplate, ScopeSensitivity, ScopeTemplate, WebhookHeaderNames } from "./provider-template.ts";
export {
  AUTH_MODES,
  type AuthMode,
  type ConnectField,
  type ConnectionConfigField,
  defineProvider,
  parseProviderDefinition,
  type ProviderDefinition,
  ProviderDefinitionError,
  type ProviderDefinitionInput,
  providerDefinitionSchema,
} from "./definition/provider-definition.ts";
export { adapterFromDefinition } from "./definition/defined-provider.ts";
export { type AuthorizationRequest, buildAuthorizationUrl, SCOPE_SEPARATORS } from "./definition/authorization-url.ts";
export {
  describePlaceholderProblem,
  fillPlaceholders,
  PLACEHOLDER_PATTERN,
  type PlaceholderFill,
  placeholderKeys,
} from "./definition/placeholders.ts";
export {
  type HeaderNames,
  type HeaderRole,
  headerNames,
  headerNotificationReader,
  headerValue,
  messageNumberOf,
} from "./notification-reading.ts";
export { calendarIdFromUri, emailKeyReader } from "./spec-matching.ts";
export {
  type IntegrationSettingsProblem,
  integrationSettingsProblems,
  MAX_SETTING_VALUE_CHARS,
} from "./integration-settings.ts";

/**
 * Every provider Junction knows, one folder each under packages/providers/src: the adapters (with code,
 * or a definition with adapter-level facts such as a consent guidance or settings), sorted by name, then the
 * catalogue's data-only definitions (validated here, at load).
 */
const ADAPTERS: readonly ProviderAdapter[] = [
  docusign,
  googleCalendar,
  googleDrive,
  googleMail,
  googleSheet,
  microsoftOutlookCalendar,
  microsoftTeams,
  oneDrive,
  outlook,
  ...CATALOGUE.map((definition) => adapterFromDefinition(definition)),
];

const BY_NAME: ReadonlyMap<string, ProviderAdapter> = new Map(ADAPTERS.map((a) => [a.name, a]));

/** The adapter of a provider, by its name (an integration's `provider`); undefined for an unknown one. */
export function providerAdapter(name: string): ProviderAdapter | undefined {
  return BY_NAME.get(name);
}

/** The channel adapters of the providers that have notification channels (worked out once). */
const CHANNEL_ADAPTERS: readonly ChannelAdapter[] = ADAPTERS.flatMap((a) => (a.channels ? [a.channels] : []));

/**
 * The channel adapters, for a caller that knows a call concerns channels but not of which provider (a
 * ReportChannelCall that names none): each is asked in turn.
 */
export function channelAdapters(): readonly ChannelAdapter[] {
  return CHANNEL_ADAPTERS;
}

/**
 * The header names the adapters give a notification role, in catalogue order, de-duplicated: for a
 * reader that sees a notification's headers without its provider (worked out once per caller).
 */
export function webhookHeaderNames(role: keyof WebhookHeaderNames): readonly string[] {
  return [...new Set(ADAPTERS.flatMap((a) => (a.webhookHeaders ? [a.webhookHeaders[role]] : [])))];
}

/**
 * Every adapter's declared connection metadata keys, de-duplicated by key (the first declaration
 * wins): what a metadata write is checked against and the dashboard's editor shows, whatever the
 * connection's provider (a connection imported from elsewhere may carry another provider's keys).
 */
export const METADATA_KEY_RULES: readonly MetadataKeyRule[] = [
  ...new Map(ADAPTERS.flatMap((a) => a.metadataKeys ?? []).map((rule) => [rule.key, rule] as const)).values(),
];

/** The metadata keys whose string arrays are a named match key (`watch_uris`: matching rule 1's URIs). */
export function matchKeyMetadata(name: "watch_uris"): readonly string[] {
  return METADATA_KEY_RULES.filter((rule) => rule.matchKey === name).map((rule) => rule.key);
}

/** A provider name and a proxy path for examples in the API's documentation (the first adapter's). */
export const documentationExample = {
  provider: googleCalendar.name,
  displayName: googleCalendar.displayName,
  proxyPath: googleCalendar.proxyPathExample ?? "",
};

/** The largest notification body any provider accepts: what a reader that does not know the provider yet may read. */
export const MAX_NOTIFICATION_BODY_BYTES = Math.max(0, ...ADAPTERS.map((a) => a.notifications?.bodyLimitBytes ?? 0));

/** Every adapter, in catalogue order. */
export function providerAdapters(): readonly ProviderAdapter[] {
  return ADAPTERS;
}

/** An integration's provider settings with the adapter's defaults for the keys it does not hold. */
export function providerSettings(
  adapter: ProviderAdapter | undefined,
  stored: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const setting of adapter?.integrationSettings ?? []) out[setting.key] = setting.defaultValue;
  for (const [key, value] of Object.entries(stored)) if (value !== "") out[key] = value;
  return out;
}

/**
 * The adapter's account-email reader when a connection with `grantedScopes` may use it: the adapter
 * stores the email hash, and the grant holds one of its `accountEmailScopes` (when it names any).
 */
export function accountEmailReader(
  adapter: ProviderAdapter,
  grantedScopes: readonly string[],
): ProviderAdapter["readAccountEmail"] {
  if (!adapter.storesEmailHash || !adapter.readAccountEmail) return undefined;
  const needed = adapter.accountEmailScopes;
  if (needed && !grantedScopes.some((scope) => needed.includes(scope))) return undefined;
  return adapter.readAccountEmail;
}
