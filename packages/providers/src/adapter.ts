import type { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import type { ProviderTemplate, ScopeSensitivity } from "./provider-template.ts";

/** A fetch as the adapters call it (the connection service injects its own, for tests and fakes). */
export type AdapterFetch = (input: string, init?: RequestInit) => Promise<Response>;

export type AccountEmailResult = { ok: true; email: string } | { ok: false; reason: string };

/** Reads the authorized account's email, with a fresh access token, within `timeoutMs` (real time). */
export type AccountEmailReader = (
  fetchImpl: AdapterFetch,
  baseUrl: string,
  accessToken: string,
  timeoutMs: number,
) => Promise<AccountEmailResult>;

/**
 * How a provider's push notifications are read and matched (spec: Inbound webhook endpoint); the header
 * names by role are the template's `webhookHeaders`.
 */
export interface NotificationAdapter {
  /** The largest notification body accepted, in bytes; a larger one is refused (413 `notification_too_large`). */
  bodyLimitBytes: number;
  /**
   * The email a notification's resource URI names, the key of matching rule 2 (spec: Webhook-to-connection
   * matching); null when it names none. Rule 1 (the exact URI) needs nothing from the adapter.
   */
  emailKeyOf(resourceUri: string): string | null;
}

/** A provider's script templates: `{directory}/{name}.ts`, each importing only "nango". */
export interface ScriptTemplates {
  directory: string;
  names: readonly string[];
}

/** What a channel-creating or channel-stopping call says about its channel. */
export interface ChannelCallFacts {
  channelId: string;
  resourceId: string;
  resourceUri: string;
  /** Unix ms; 0 when unknown. */
  expirationMs: number;
  token: string;
}

/** How a provider's notification channels are seen in proxied traffic, and stopped. */
export interface ChannelAdapter {
  /** Whether a proxied call (method, upstream path) creates or stops a channel. */
  callOf(method: string, path: string): ChannelCall | undefined;
  /** The channel a recognised call names, read from its request and response bodies; null when none. */
  readCall(call: ChannelCall, requestBody: Uint8Array, responseBody: Uint8Array): ChannelCallFacts | null;
  /** The stop call's path under the integration's base URL. */
  stopPath: string;
  /** The stop call's JSON body for one channel. */
  stopBody(channel: { id: string; resourceId: string }): string;
}

export type GuidanceSensitivity = ScopeSensitivity | "unknown";

/** What an integration's scopes mean at the upstream's consent screen and app review (GetConsentGuidance). */
export interface ConsentGuidance {
  scopes: { name: string; description: string; sensitivity: GuidanceSensitivity }[];
  highestSensitivity: GuidanceSensitivity;
  verificationRequired: boolean;
  securityAssessmentRequired: boolean;
  /** Refresh token lifetime in Testing mode with External audience; 0 when unlimited. */
  testingModeRefreshTokenDays: number;
  notes: string[];
}

/**
 * Everything Junction knows of one provider: its OAuth template (the ProviderTemplate fields), how the
 * account's email is read after authorization, and, for providers with push notifications, how they are
 * read and matched and how their channels are recognised and stopped. Services, gateway and scripts
 * runtime ask `providerAdapter(name)`; none of them names a provider.
 */
export interface ProviderAdapter extends ProviderTemplate {
  /** An upstream path under `baseUrl`, without its leading slash, for examples in the API's documentation. */
  proxyPathExample?: string;
  /** Customer-side scripts written for this provider, deployed as customers deploy theirs (one file each). */
  scriptTemplates?: ScriptTemplates;
  /** What a set of scopes means at the upstream's consent screen and app review. */
  consentGuidance(scopes: string[]): ConsentGuidance;
  /** Set when connections store connection_config.emailAddressHash (`storesEmailHash`). */
  readAccountEmail?: AccountEmailReader;
  notifications?: NotificationAdapter;
  channels?: ChannelAdapter;
}
