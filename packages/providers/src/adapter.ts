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
 * An inbound notification as the webhook URL received it; header names lower-case. `authorization` is
 * there for the reader's checks only: receipt never records, forwards or logs it.
 */
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
  /**
   * What de-duplicates this notification within its integration when the provider numbers none (a
   * Pub/Sub `messageId`, a hash of a batch item); absent: the channel id and message number do.
   */
  dedupeKey?: string;
  /**
   * How connections are found: by the resource URI (rules 1–2, the default), by an email the
   * notification names itself (rule 2's tiers), or by its channel (the registry's connection that
   * created it: exact, for providers whose notifications name a subscription).
   */
  match?: { by: "resource" } | { by: "email"; email: string } | { by: "channel" };
  /** The forwarded message's `payload`; the headers as received when absent (spec: Forwarded webhook message). */
  payload?: Record<string, unknown>;
  /**
   * A notification about the channel itself rather than a change: the upstream asks for it to be
   * reauthorized (renewed), says it removed it, or says notifications were missed (forwarded, so the
   * app resyncs).
   */
  lifecycle?: "reauthorizationRequired" | "subscriptionRemoved" | "missed";
}

/** What a reader knows besides the request: the integration's provider settings, the time, a fetch. */
export interface ReadContext {
  /** The integration's provider settings (`integrationSettings` keys; defaults applied). */
  settings: Readonly<Record<string, string>>;
  /** Now, Unix ms, from the injected clock. */
  now: number;
  /** For what a check must fetch (a JWKS); the adapter caches what it fetched. */
  fetch: AdapterFetch;
}

/**
 * What an inbound request is: a handshake to answer as is, without recording anything (Microsoft
 * Graph's `?validationToken=` check answers 200 text/plain with the token; the gateway sends it back
 * with `nosniff`, a body of at most 64 KiB, status 200–499); notifications to record (an array, for
 * providers that send batches: at most `maxItems`, each recorded as its own notification); or a
 * refusal in the API's error shape.
 */
export type NotificationReading =
  | { kind: "handshake"; status: number; contentType: string; body: Uint8Array }
  /**
   * `acceptStatus`: the 2xx the provider expects once every item is stored (default 200; Graph wants 202).
   * `dropped`: why each item the reader skipped was skipped (one reason per item, no secrets), for receipt
   * to log; the rest of the batch is recorded and the provider still gets its 2xx (refusing would make it
   * resend the whole batch).
   */
  | { kind: "notifications"; items: NotificationItem[]; acceptStatus?: number; dropped?: string[] }
  | { kind: "refused"; status: number; code: string; message: string };

/** How a provider's push notifications are read and matched (spec: Inbound webhook endpoint). */
export interface NotificationAdapter {
  /** What an inbound request says: a handshake answer, its notifications, or a refusal. */
  read(notification: InboundNotification, context: ReadContext): NotificationReading | Promise<NotificationReading>;
  /** The most items one request may carry (a batch provider's); larger batches are refused. Default 1. */
  maxItems?: number;
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

/** An upstream call a channel adapter asks for, under the integration's base URL, with the connection's credentials. */
export interface UpstreamCall {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** Path (and query) under the base URL, starting with "/". */
  path: string;
  /** JSON body; none when absent. */
  body?: string;
}

/** A channel as the registry holds it, for the calls that stop or renew it. */
export interface ChannelRef {
  id: string;
  resourceId: string;
  resourceUri: string;
  connectionId: string;
  /** Unix ms; 0 when unknown. */
  expirationMs: number;
  token: string;
}

/** What Junction needs to create a channel itself (managed channels). */
export interface ChannelCreation {
  /** A fresh channel id (Junction's; the provider may replace it with its own, read from the answer). */
  channelId: string;
  /** A fresh per-channel secret (the channel token or `clientState`). */
  token: string;
  /** The integration's webhook URL, where the upstream sends notifications. */
  webhookUrl: string;
  /** The integration's provider settings (defaults applied). */
  settings: Readonly<Record<string, string>>;
  /** Now, Unix ms. */
  now: number;
  /**
   * The account's email, read with the provider's `readAccountEmail` when the adapter says
   * `createWatchesAccount`; absent otherwise.
   */
  accountEmail?: string;
}

/**
 * How a provider's notification channels are seen in proxied traffic, stopped and, when the
 * integration has `managed_channels`, created and renewed by Junction itself.
 */
export interface ChannelAdapter {
  /** What one channel is called for this provider ("watch channel", "subscription"), for people reading lists. */
  label: string;
  /** Whether a proxied call (method, upstream path) creates, renews or stops a channel. */
  callOf(method: string, path: string): ChannelCall | undefined;
  /**
   * The channel a recognised call names, read from its path, request and response bodies; null
   * when none. `call.connectionId` is the connection that made it (a provider with one watch per
   * connection and no channel id of its own derives the id from it).
   */
  readCall(
    call: ChannelCall,
    requestBody: Uint8Array,
    responseBody: Uint8Array,
    context: { path: string; connectionId: string },
  ): ChannelCallFacts | null;
  /** The call that stops one channel. */
  stopCall(channel: ChannelRef): UpstreamCall;
  /** The channel limits: how long the provider lets one live at most, in ms (its documentation). */
  maxLifetimeMs: number;
  /** Renew this long before expiry (managed channels). */
  renewMarginMs: number;
  /** Managed channels: the call that creates one, and how its answer is read. Absent: not manageable. */
  create?(input: ChannelCreation): UpstreamCall;
  /**
   * Managed channels: `create` watches a resource named by the account's email (a calendar id), so
   * that notifications carry it and match by the email tiers; Junction reads it first.
   */
  createWatchesAccount?: boolean;
  readCreated?(input: ChannelCreation, responseBody: Uint8Array): ChannelCallFacts | null;
  /**
   * Managed channels: how one is renewed. "recreate": create a new one, then stop the old (only one
   * stays active); otherwise the call that extends it in place (its answer read by `readCreated`).
   */
  renew?: "recreate" | ((channel: ChannelRef, input: ChannelCreation) => UpstreamCall);
}

/**
 * A connection metadata key a provider gives a meaning to (spec: Resources, Connection, "Known metadata
 * keys"): its type, checked on every metadata write (null clears it), and how the dashboard's metadata
 * editor shows it. `matchKey: "watch_uris"`: an array of URIs by which matching rule 1 finds the
 * connection (indexed by the store under that name, whatever the key is called).
 */
export interface MetadataKeyRule {
  key: string;
  type: "string" | "string[]";
  /** For people editing it: what the value is. */
  description: string;
  matchKey?: "watch_uris";
}

/** A provider setting an integration may hold (`provider_settings`), shown and asked for by the dashboard. */
export interface IntegrationSetting {
  key: string;
  label: string;
  description: string;
  /** Used when the integration holds none; "" when there is no default. */
  defaultValue: string;
  /** Where the operator finds the value (a documentation URL). */
  docsUrl?: string;
  /** The value is a URL Junction fetches: an absolute https URL, checked by the address policy when saved. */
  isUrl?: boolean;
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
  /**
   * The scopes of which one must be granted for `readAccountEmail` to be allowed; absent: any grant
   * allows it. A connection without one gets no hash and no error saying it could not be read.
   */
  accountEmailScopes?: readonly string[];
  notifications?: NotificationAdapter;
  /** The connection metadata keys this provider gives a meaning to (validated, indexed, edited). */
  metadataKeys?: readonly MetadataKeyRule[];
  channels?: ChannelAdapter;
  /** The provider's own integration settings (a push audience, a tenant), with their defaults. */
  integrationSettings?: readonly IntegrationSetting[];
}
