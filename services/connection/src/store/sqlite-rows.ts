import { connectionLookupKeys } from "./lookup-keys.ts";
import type {
  ConnectionErrorRecord,
  ConnectionRecord,
  EnvironmentRecord,
  IntegrationRecord,
  SecretKeyRecord,
  UpstreamOverridesRecord,
} from "./records.ts";

// Row shapes of the SQLite tables (see sqlite-schema.ts) and their conversions to and from records.

export interface EnvironmentRow {
  id: string;
  name: string;
  created_at: number;
}

export interface SecretKeyRow {
  id: string;
  environment_id: string;
  name: string;
  prefix: string;
  hash: string;
  created_at: number;
  revoked_at: number | null;
  scopes: string;
  last_used_at: number | null;
}

export interface IntegrationRow {
  environment_id: string;
  unique_key: string;
  provider: string;
  display_name: string;
  client_id: string;
  client_secret_enc: string | null;
  scopes: string;
  overrides: string;
  forward_webhooks: number;
  use_test_credentials: number;
  /** JSON object of strings. */
  provider_settings: string;
  managed_channels: number;
  /** NULL: never set. */
  strict_channels: number | null;
  /** Read only: set by markImportedEmailHashes, kept by every other write. */
  imported_email_hashes?: number;
  created_at: number;
  updated_at: number;
}

/** The stored columns of a connection (the derived lookup columns are write-only). */
export interface ConnectionRow {
  id: string;
  environment_id: string;
  provider_config_key: string;
  connection_id: string;
  provider: string;
  credentials_enc: string | null;
  credentials_expires_at: number | null;
  connection_config: string;
  metadata: string;
  end_user: string | null;
  errors: string;
  tags: string;
  /** '' when none. */
  webhook_url_override: string;
  created_at: number;
  updated_at: number;
}

/** A connection row as written: stored columns plus the derived lookup columns. */
export interface ConnectionWriteRow extends ConnectionRow {
  email_address_hash: string | null;
  meta_email_address_norm: string | null;
  meta_email_norm: string | null;
  end_user_id: string | null;
}

export const environmentFromRow = (r: EnvironmentRow): EnvironmentRecord => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
});

export const secretKeyFromRow = (r: SecretKeyRow): SecretKeyRecord => ({
  id: r.id,
  environmentId: r.environment_id,
  name: r.name,
  prefix: r.prefix,
  hash: r.hash,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  scopes: JSON.parse(r.scopes) as string[],
  lastUsedAt: r.last_used_at,
});

export const secretKeyToRow = (k: SecretKeyRecord): SecretKeyRow => ({
  id: k.id,
  environment_id: k.environmentId,
  name: k.name,
  prefix: k.prefix,
  hash: k.hash,
  created_at: k.createdAt,
  revoked_at: k.revokedAt,
  scopes: JSON.stringify(k.scopes),
  last_used_at: k.lastUsedAt,
});

export const integrationFromRow = (r: IntegrationRow): IntegrationRecord => ({
  environmentId: r.environment_id,
  uniqueKey: r.unique_key,
  provider: r.provider,
  displayName: r.display_name,
  clientId: r.client_id,
  clientSecretEnc: r.client_secret_enc,
  scopes: JSON.parse(r.scopes) as string[],
  overrides: JSON.parse(r.overrides) as UpstreamOverridesRecord,
  forwardWebhooks: r.forward_webhooks !== 0,
  useTestCredentials: r.use_test_credentials !== 0,
  providerSettings: JSON.parse(r.provider_settings) as Record<string, string>,
  managedChannels: r.managed_channels !== 0,
  ...(r.strict_channels === null ? {} : { strictChannels: r.strict_channels !== 0 }),
  ...(r.imported_email_hashes ? { importedEmailHashes: true as const } : {}),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const integrationToRow = (i: IntegrationRecord): IntegrationRow => ({
  environment_id: i.environmentId,
  unique_key: i.uniqueKey,
  provider: i.provider,
  display_name: i.displayName,
  client_id: i.clientId,
  client_secret_enc: i.clientSecretEnc,
  scopes: JSON.stringify(i.scopes),
  overrides: JSON.stringify(i.overrides),
  forward_webhooks: i.forwardWebhooks ? 1 : 0,
  use_test_credentials: i.useTestCredentials ? 1 : 0,
  provider_settings: JSON.stringify(i.providerSettings ?? {}),
  managed_channels: i.managedChannels ? 1 : 0,
  strict_channels: i.strictChannels === undefined ? null : i.strictChannels ? 1 : 0,
  created_at: i.createdAt,
  updated_at: i.updatedAt,
});

export const connectionFromRow = (r: ConnectionRow): ConnectionRecord => ({
  id: r.id,
  environmentId: r.environment_id,
  providerConfigKey: r.provider_config_key,
  connectionId: r.connection_id,
  provider: r.provider,
  credentialsEnc: r.credentials_enc,
  credentialsExpiresAt: r.credentials_expires_at,
  connectionConfig: JSON.parse(r.connection_config) as Record<string, unknown>,
  metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  endUser: r.end_user === null ? null : (JSON.parse(r.end_user) as Record<string, unknown>),
  errors: JSON.parse(r.errors) as ConnectionErrorRecord[],
  tags: JSON.parse(r.tags) as Record<string, string>,
  ...(r.webhook_url_override ? { webhookUrlOverride: r.webhook_url_override } : {}),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The row of a connection, with its lookup columns derived from the JSON fields. */
export function connectionToRow(c: ConnectionRecord): ConnectionWriteRow {
  const keys = connectionLookupKeys(c);
  return {
    id: c.id,
    environment_id: c.environmentId,
    provider_config_key: c.providerConfigKey,
    connection_id: c.connectionId,
    provider: c.provider,
    credentials_enc: c.credentialsEnc,
    credentials_expires_at: c.credentialsExpiresAt,
    connection_config: JSON.stringify(c.connectionConfig),
    metadata: JSON.stringify(c.metadata),
    end_user: c.endUser === null ? null : JSON.stringify(c.endUser),
    errors: JSON.stringify(c.errors),
    tags: JSON.stringify(c.tags),
    webhook_url_override: c.webhookUrlOverride ?? "",
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    email_address_hash: keys.emailAddressHash,
    meta_email_address_norm: keys.metadataEmailAddress,
    meta_email_norm: keys.metadataEmail,
    end_user_id: keys.endUserId,
  };
}
