/** Stored shapes of the channel registry. Times are Unix milliseconds. */

/** Lifecycle state as stored (spec: Notification channel lifecycle). */
export type ChannelState = "active" | "stopped" | "expired";

export interface ChannelRecord {
  environmentId: string;
  /** The channel id the customer chose (at most 64 characters); unique per environment. */
  id: string;
  /** Upstream resource id from the watch response; a stop must name it. */
  resourceId: string;
  providerConfigKey: string;
  /** The connection whose watch call created the channel. */
  connectionId: string;
  resourceUri: string;
  /** When the upstream stops sending; null when the watch response did not say. */
  expiration: number | null;
  state: ChannelState;
  createdAt: number;
  updatedAt: number;
  stoppedAt: number | null;
  /** Highest x-provider-message-number seen; 0 before any notification. */
  lastMessageNumber: number;
  /**
   * The channel token (a shared secret chosen at creation, echoed by every notification), sealed to this
   * row (`ChannelTokens`); as given in a row stored before tokens were sealed. Null when none was set.
   */
  token: string | null;
  /** The token's keyed digest, what notifications are checked against; null with no token, or not yet sealed. */
  tokenDigest: string | null;
  /**
   * When the customer was warned that the channel expires within a day with no successor; null until
   * then. Cleared when the channel starts afresh or its expiration changes, so that each life of a
   * channel is warned about once.
   */
  expiryWarnedAt: number | null;
}

/** A successful watch call, as the proxy observed it. */
export interface ChannelWatch {
  environmentId: string;
  channelId: string;
  resourceId: string;
  providerConfigKey: string;
  connectionId: string;
  resourceUri: string;
  expiration: number | null;
  /** The watch's token, sealed (`ChannelTokens.seal`) with its digest; null for none. */
  token: string | null;
  /** Absent or null: `token` is as given (a row the service seals at its start). */
  tokenDigest?: string | null;
  at: number;
}

/** A channel's token for rewriting its seal (`junction rekey`, sealing rows stored as given). */
export interface ChannelTokenRow {
  environmentId: string;
  id: string;
  token: string;
  tokenDigest: string | null;
}

/** Filter for listing channels; absent fields do not filter. */
export interface ChannelFilter {
  providerConfigKey?: string;
  connectionId?: string;
  /** Effective state: an active channel past its expiration counts as expired. */
  state?: ChannelState;
  /** Only channels with a known expiration strictly before this time. */
  expiringBefore?: number;
}
