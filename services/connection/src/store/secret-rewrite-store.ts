/** A connection's sealed credentials and the row they are bound to, as `junction rekey` reads them. */
export interface SealedCredentials {
  /** Internal id (conn_...): the scan order and the row the swap writes. */
  id: string;
  environmentId: string;
  providerConfigKey: string;
  connectionId: string;
  credentialsEnc: string;
}

/** An integration's sealed OAuth client secret. */
export interface SealedClientSecret {
  environmentId: string;
  uniqueKey: string;
  clientSecretEnc: string;
}

/**
 * Reading and rewriting the sealed secrets one row at a time (`junction rekey`). Scans go in a
 * stable order from a cursor, so a run can stop anywhere; swaps are compare-and-set on the sealed value,
 * so a write that happened since the scan (a refresh, a re-authorization) is never overwritten.
 */
export interface SecretRewriteStore {
  /** Up to `limit` connections with credentials whose internal id sorts after `afterId` ("" from the start). */
  scanCredentials(afterId: string, limit: number): Promise<SealedCredentials[]>;
  /** Sets connection `id`'s credentials to `next` only while they are still `expected`; whether it did. */
  swapCredentials(id: string, expected: string, next: string): Promise<boolean>;
  /** Every integration with a client secret (a few per environment: no paging). */
  scanClientSecrets(): Promise<SealedClientSecret[]>;
  /** Sets the client secret to `next` only while it is still `expected`; whether it did. */
  swapClientSecret(environmentId: string, uniqueKey: string, expected: string, next: string): Promise<boolean>;
}
