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

/** An inbound notification as the webhook URL received it; header names lower-case, credentials removed. */
export interface InboundNotification {
  headers: Readonly<Record<string, string>>;
  body: Uint8Array;
  /** The webhook URL's query string, without the "?"; "" when none. */
  query: string;
  contentType: string;
}

/** One notification an inbound request carries, as its provider says it. */
export interface NotificationItem {
  /** Undefined when the request names no channel. */
  channelId: string | undefined;
  /** Null when absent or not a plain non-negative integer. */
  messageNumber: number | null;
  /** The resource URI ("" when none); matching rule 1's key, and rule 2's through `emailKeyOf`. */
  resourceUri: string;
  /** The provider's id of the watched resource; "" when none. */
  resourceId: string;
  /** The provider's resource state ("sync", "exists", ...); "" when none. */
  state: string;
  /** The channel's verification token as sent; "" when none (checked against the channel's, at receipt). */
  token: string;
}

/**
 * What an inbound request is: a handshake to answer as is, without recording anything (Microsoft
 * Graph's `?validationToken=` check answers 200 text/plain with the token; no provider here needs one
 * yet, and receipt refuses it as an invalid notification until the gateway sends the answer back);
 * notifications to record (an array, for providers that send batches; receipt takes exactly one);
 * or a refusal in the API's error shape.
 */
export type NotificationReading =
  | { kind: "handshake"; status: number; contentType: string; body: Uint8Array }
  | { kind: "notifications"; items: NotificationItem[] }
  | { kind: "refused"; status: number; code: string; message: string };

/** How a provider's push notifications are read and matched (spec: Inbound webhook endpoint). */
export interface NotificationAdapter {
  /** What an inbound request says: a handshake answer, its notifications, or a refusal. */
  read(notification: InboundNotification): NotificationReading;
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
