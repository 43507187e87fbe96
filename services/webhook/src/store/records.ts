/** Stored shapes of the webhook service's settings. Times are Unix milliseconds. */

/** A customer endpoint that receives webhook messages. */
export interface EndpointRecord {
  /** Prefixed id (ep_...), kept while the URL stays in the list. */
  id: string;
  /** Absolute URL, normalised (see address-policy.ts). */
  url: string;
  enabled: boolean;
  createdAt: number;
  /** Why it was disabled automatically; absent while enabled or when disabled by hand. */
  disabledReason?: string;
  /** Since when every attempt to it has failed; absent while healthy. */
  failingSince?: number;
}

/**
 * One environment's webhook settings, stored whole and replaced whole. `version` starts at 1 and
 * grows by one on every save, so that concurrent read-modify-write cycles (an update racing a
 * rotation) cannot silently overwrite each other.
 */
export interface WebhookSettingsRecord {
  environmentId: string;
  version: number;
  endpoints: EndpointRecord[];
  /** Current signing secret (whsec_...), as an Encryptor envelope. */
  signingSecretEnc: string;
  /** First characters of the current secret's plaintext, to recognise it; never enough to use it. */
  signingSecretPrefix: string;
  /** The secret that was current before the last rotation (Encryptor envelope), or null. */
  previousSigningSecretEnc: string | null;
  /** Until when the previous secret still signs; null when there is none. */
  previousSecretValidUntil: number | null;
  /** Whether the current secret's plaintext was ever answered (first endpoint set, or a rotation). */
  signingSecretShown: boolean;
  createdAt: number;
  updatedAt: number;
}

/** Where a message stands (Svix-style explicit states). */
export type DeliveryStatus = "pending" | "succeeded" | "failed" | "exhausted";

/**
 * A message for the customer's endpoints and its delivery state. The id is the `webhook-id`,
 * stable across retries and replays; `body` holds the exact bytes that are signed and sent.
 */
export interface MessageRecord {
  id: string;
  environmentId: string;
  /** "forward", "auth", "endpoint_disabled"... */
  type: string;
  /** Integration id, "" when none. */
  providerConfigKey: string;
  /** Connection id, "" when none (an unmatched notification). */
  connectionId: string;
  /** Notification it came from (ntf_...), "" when none. */
  notificationId: string;
  /**
   * Where the message goes instead of the environment's endpoints: its connection's webhook URL
   * override (Nango's webhook_url_override) when the message was stored. Absent: the endpoints.
   */
  targetUrl?: string;
  body: Uint8Array;
  status: DeliveryStatus;
  /** Attempt rounds made so far (a round posts to every endpoint still owed the message). */
  attemptCount: number;
  /** Rounds since creation or the last replay: the position in the retry schedule. */
  roundAttempts: number;
  /** When the next round is due; null when none is (succeeded, exhausted). */
  nextAttemptAt: number | null;
  lastError: string | null;
  /** Endpoints that answered 2xx in the current run (since creation or the last replay). */
  deliveredEndpointIds: string[];
  /** Who is attempting it now: set by a claim, cleared when its round is recorded. */
  leaseToken: string | null;
  /** Until when the claim holds; after it, another worker may take the message. */
  leaseUntil: number | null;
  createdAt: number;
  updatedAt: number;
}

/** One attempt of one message to one endpoint. */
export interface AttemptRecord {
  /** Prefixed id (att_...). */
  id: string;
  messageId: string;
  endpointId: string;
  /** Endpoint URL at the time of the attempt. */
  url: string;
  /** HTTP status; 0 when there was no response (timeout, refused). */
  statusCode: number;
  latencyMs: number;
  /** First characters of the response body. */
  responseSnippet: string;
  /** Why it failed; null when it succeeded. */
  error: string | null;
  at: number;
  /** The round it belongs to (1 for the message's first). */
  number: number;
}

/** Filter of the delivery log; absent fields do not filter. */
export interface MessageFilter {
  providerConfigKey?: string;
  connectionId?: string;
  status?: DeliveryStatus;
  type?: string;
  /** Only messages without a connection (unmatched notifications). */
  unmatchedOnly?: boolean;
}

/** A claimed round's outcome, written with its attempts. */
export interface RoundOutcome {
  status: DeliveryStatus;
  attemptCount: number;
  roundAttempts: number;
  nextAttemptAt: number | null;
  lastError: string | null;
  deliveredEndpointIds: string[];
  updatedAt: number;
}

/** A message due for delivery, as the scheduler needs it. */
export interface DeliverableMessage {
  id: string;
  nextAttemptAt: number;
  leaseUntil: number | null;
}
