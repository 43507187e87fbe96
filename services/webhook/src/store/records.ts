/** Stored shapes of the webhook service's settings. Times are Unix milliseconds. */

/** A customer endpoint that receives webhook messages. */
export interface EndpointRecord {
  /** Prefixed id (ep_...), kept while the URL stays in the list. */
  id: string;
  /** Absolute URL, normalised (see address-policy.ts). */
  url: string;
  enabled: boolean;
  createdAt: number;
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
  createdAt: number;
  updatedAt: number;
}
