import type { JsonObject } from "@bufbuild/protobuf";
import type { Encryptor } from "@junction/platform";

/** Upstream OAuth credentials as stored (encrypted as one JSON document). */
export interface StoredCredentials {
  type: "OAUTH2";
  accessToken: string;
  refreshToken: string;
  /** Unix ms; null when the upstream gave no expiry. */
  expiresAt: number | null;
  raw: JsonObject;
  /** The scopes granted (the token answer's `scope`, else those asked for), as the provider writes them. */
  scope?: string;
  /**
   * Obtained with the operator's test credentials (spec: Authentication 4): refreshes must use the same
   * OAuth client, whatever the integration's switch says later.
   */
  testCredentials?: boolean;
}

export function sealCredentials(encryptor: Encryptor, creds: StoredCredentials): string {
  return encryptor.encrypt(JSON.stringify(creds));
}

export function openCredentials(encryptor: Encryptor, sealed: string): StoredCredentials {
  return JSON.parse(encryptor.decrypt(sealed)) as StoredCredentials;
}
