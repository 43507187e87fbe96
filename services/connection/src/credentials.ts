import type { JsonObject } from "@bufbuild/protobuf";
import type { Encryptor } from "@junction/platform";
import { secretContexts } from "./secret-contexts.ts";

/** How a connection's credentials authenticate upstream (its provider's auth mode). */
export type CredentialsType = "OAUTH2" | "OAUTH2_CC" | "API_KEY" | "BASIC";

/**
 * Upstream credentials as stored (encrypted as one JSON document): OAuth tokens, or an API key, or a
 * user name and password (the token fields then empty).
 */
export interface StoredCredentials {
  type: CredentialsType;
  /** "" for API_KEY and BASIC. */
  accessToken: string;
  /** "" when none (OAUTH2_CC, API_KEY, BASIC, or an upstream that issued none). */
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
  /** API_KEY: the key. */
  apiKey?: string;
  /** BASIC: the user name and password. */
  username?: string;
  password?: string;
}

/** Whether the credentials are refreshed by a token endpoint (OAuth) rather than fixed (API key, basic). */
export function isRefreshable(creds: StoredCredentials): boolean {
  return creds.type === "OAUTH2" || creds.type === "OAUTH2_CC";
}

/** The connection row credentials are bound to (their encryption's associated data). */
export type CredentialsRow = Parameters<typeof secretContexts.connectionCredentials>[0];

/** Seals credentials for one connection row; they decrypt in no other. */
export function sealCredentials(encryptor: Encryptor, row: CredentialsRow, creds: StoredCredentials): string {
  return encryptor.encrypt(JSON.stringify(creds), secretContexts.connectionCredentials(row));
}

/** Opens the credentials sealed for this row; a DecryptionError (stored_secret_unreadable) otherwise. */
export function openCredentials(encryptor: Encryptor, row: CredentialsRow, sealed: string): StoredCredentials {
  return JSON.parse(encryptor.decrypt(sealed, secretContexts.connectionCredentials(row))) as StoredCredentials;
}

/**
 * A renamed integration's connection, its credentials sealed again for the new integration key (they
 * are bound to it). Credentials that do not open for the old row are left as they are (they opened
 * nowhere before the rename either).
 */
export function resealMovedCredentials(
  encryptor: Encryptor,
  moved: CredentialsRow & { credentialsEnc: string },
  newKey: string,
): string {
  try {
    return encryptor.reseal(
      moved.credentialsEnc,
      secretContexts.connectionCredentials(moved),
      secretContexts.connectionCredentials({ ...moved, providerConfigKey: newKey }),
    );
  } catch {
    return moved.credentialsEnc;
  }
}
