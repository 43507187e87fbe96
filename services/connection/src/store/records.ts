/** Stored shapes of the connection service's domain. Times are Unix milliseconds. */

export interface EnvironmentRecord {
  id: string;
  name: string;
  createdAt: number;
}

export interface SecretKeyRecord {
  id: string;
  environmentId: string;
  name: string;
  /** First characters of the plaintext, to recognise a key in a list. */
  prefix: string;
  /** SHA-256 hex of the plaintext; the plaintext is never stored. */
  hash: string;
  createdAt: number;
  revokedAt: number | null;
}

export interface UpstreamOverridesRecord {
  baseUrl?: string;
  authorizationUrl?: string;
  tokenUrl?: string;
}

export interface IntegrationRecord {
  environmentId: string;
  /** The integration id (provider config key); unique per environment. */
  uniqueKey: string;
  provider: string;
  displayName: string;
  clientId: string;
  /** Encrypted client secret (Encryptor envelope), null when none was given. */
  clientSecretEnc: string | null;
  scopes: string[];
  overrides: UpstreamOverridesRecord;
  forwardWebhooks: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface ConnectionErrorRecord {
  type: string;
  message: string;
  at: number;
}

export interface ConnectionRecord {
  /** Internal prefixed id (conn_...), stable across re-authorizations. */
  id: string;
  environmentId: string;
  providerConfigKey: string;
  /** The customer-facing connection id; unique per (environment, integration). */
  connectionId: string;
  provider: string;
  /** Encrypted credentials JSON (Encryptor envelope). */
  credentialsEnc: string | null;
  credentialsExpiresAt: number | null;
  connectionConfig: Record<string, unknown>;
  metadata: Record<string, unknown>;
  endUser: Record<string, unknown> | null;
  errors: ConnectionErrorRecord[];
  createdAt: number;
  updatedAt: number;
}

/** Filter and page for listing connections. */
export interface ConnectionFilter {
  providerConfigKey?: string;
  /** Substring of the connection id (case-insensitive). */
  search?: string;
  connectionId?: string;
  endUserId?: string;
  limit: number;
  offset: number;
}

export type MetadataMode = "set" | "update";

/** Fields of a connection that may be patched after creation. */
export type ConnectionPatch = Partial<
  Pick<ConnectionRecord, "credentialsEnc" | "credentialsExpiresAt" | "connectionConfig" | "errors" | "endUser">
>;
