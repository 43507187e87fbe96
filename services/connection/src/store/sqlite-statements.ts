import type { Database, Statement } from "bun:sqlite";
import type { ConnectionRow, EnvironmentRow, IntegrationRow, SecretKeyRow } from "./sqlite-rows.ts";
import { LOOKUP_SQL } from "./sqlite-schema.ts";

/** Named parameters ($name in SQL, `name` here: the database is opened in strict mode). */
export type Params = Record<string, string | number | null>;
export type Query<R> = Statement<R, [Params]>;

export const CONNECTION_COLUMNS =
  "id, environment_id, provider_config_key, connection_id, provider, credentials_enc, credentials_expires_at, connection_config, metadata, end_user, errors, tags, webhook_url_override, created_at, updated_at";
const CONNECTION_KEY = "environment_id = $environment_id AND provider_config_key = $provider_config_key";

export type Statements = ReturnType<typeof prepareStatements>;

/** What the match keys of a connection derive from (connection_config and metadata are JSON). */
export interface KeyedConnectionRow {
  environment_id: string;
  provider_config_key: string;
  connection_id: string;
  connection_config: string;
  metadata: string;
}

/** Prepares a statement with named parameters. */
type Prepare = <R = unknown>(sql: string) => Query<R>;

/** A matched connection and its webhook URL override ('' for none), as the match lookups answer. */
interface MatchedRow {
  connection_id: string;
  webhook_url_override: string;
}

/** Prepares, once per store, every fixed statement of the SQLite store. */
export function prepareStatements(db: Database) {
  const p: Prepare = <R = unknown>(sql: string) => db.prepare<R, [Params]>(sql);
  return {
    ...environmentStatements(p),
    ...integrationStatements(p),
    ...connectionStatements(p),
    ...matchKeyStatements(p),
  };
}

/** The environment and its secret keys. */
function environmentStatements(p: Prepare) {
  return {
    environmentFirst: p<EnvironmentRow>("SELECT * FROM environments ORDER BY created_at, id LIMIT 1"),
    environmentInsert: p("INSERT INTO environments (id, name, created_at) VALUES ($id, $name, $created_at)"),
    keyInsert: p(
      "INSERT INTO secret_keys (id, environment_id, name, prefix, hash, created_at, revoked_at, scopes, last_used_at) VALUES ($id, $environment_id, $name, $prefix, $hash, $created_at, $revoked_at, $scopes, $last_used_at)",
    ),
    keyTouch: p("UPDATE secret_keys SET last_used_at = $at WHERE environment_id = $environment_id AND id = $id"),
    keyList: p<SecretKeyRow>(
      "SELECT * FROM secret_keys WHERE environment_id = $environment_id ORDER BY created_at, id",
    ),
    keyRevoke: p<SecretKeyRow>(
      "UPDATE secret_keys SET revoked_at = COALESCE(revoked_at, $at) WHERE environment_id = $environment_id AND id = $id RETURNING *",
    ),
  };
}

/** Integrations. */
function integrationStatements(p: Prepare) {
  return {
    integrationInsert: p(
      "INSERT INTO integrations (environment_id, unique_key, provider, display_name, client_id, client_secret_enc, scopes, overrides, forward_webhooks, use_test_credentials, provider_settings, managed_channels, strict_channels, created_at, updated_at) VALUES ($environment_id, $unique_key, $provider, $display_name, $client_id, $client_secret_enc, $scopes, $overrides, $forward_webhooks, $use_test_credentials, $provider_settings, $managed_channels, $strict_channels, $created_at, $updated_at)",
    ),
    integrationGet: p<IntegrationRow>(
      "SELECT * FROM integrations WHERE environment_id = $environment_id AND unique_key = $unique_key",
    ),
    integrationList: p<IntegrationRow>(
      "SELECT * FROM integrations WHERE environment_id = $environment_id ORDER BY created_at, unique_key",
    ),
    integrationReplace: p(
      "UPDATE integrations SET unique_key = $unique_key, provider = $provider, display_name = $display_name, client_id = $client_id, client_secret_enc = $client_secret_enc, scopes = $scopes, overrides = $overrides, forward_webhooks = $forward_webhooks, use_test_credentials = $use_test_credentials, provider_settings = $provider_settings, managed_channels = $managed_channels, strict_channels = $strict_channels, created_at = $created_at, updated_at = $updated_at WHERE environment_id = $environment_id AND unique_key = $old_key",
    ),
    integrationDelete: p(
      "DELETE FROM integrations WHERE environment_id = $environment_id AND unique_key = $unique_key",
    ),
    integrationMarkImportedEmailHashes: p(
      "UPDATE integrations SET imported_email_hashes = 1 WHERE environment_id = $environment_id AND unique_key = $unique_key",
    ),
  };
}

/**
 * Connections: one by its key, those of an integration (a rename moves them, a delete removes them),
 * and what their match keys derive from.
 */
function connectionStatements(p: Prepare) {
  return {
    connectionsMove: p(
      "UPDATE connections SET provider_config_key = $new_key WHERE environment_id = $environment_id AND provider_config_key = $provider_config_key",
    ),
    connectionsDeleteAll: p(`DELETE FROM connections WHERE ${CONNECTION_KEY}`),
    connectionOverride: p<{ webhook_url_override: string }>(
      `SELECT webhook_url_override FROM connections WHERE ${CONNECTION_KEY} AND connection_id = $connection_id`,
    ),
    connectionGet: p<ConnectionRow>(
      `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE ${CONNECTION_KEY} AND connection_id = $connection_id`,
    ),
    connectionInsert: p(
      "INSERT INTO connections (id, environment_id, provider_config_key, connection_id, provider, credentials_enc, credentials_expires_at, connection_config, metadata, end_user, errors, tags, webhook_url_override, created_at, updated_at, email_address_hash, meta_email_address_norm, meta_email_norm, end_user_id) VALUES ($id, $environment_id, $provider_config_key, $connection_id, $provider, $credentials_enc, $credentials_expires_at, $connection_config, $metadata, $end_user, $errors, $tags, $webhook_url_override, $created_at, $updated_at, $email_address_hash, $meta_email_address_norm, $meta_email_norm, $end_user_id)",
    ),
    // Every update rewrites all mutable columns, so the derived ones can never go stale.
    connectionUpdate: p(
      "UPDATE connections SET provider = $provider, credentials_enc = $credentials_enc, credentials_expires_at = $credentials_expires_at, connection_config = $connection_config, metadata = $metadata, end_user = $end_user, errors = $errors, tags = $tags, webhook_url_override = $webhook_url_override, updated_at = $updated_at, email_address_hash = $email_address_hash, meta_email_address_norm = $meta_email_address_norm, meta_email_norm = $meta_email_norm, end_user_id = $end_user_id WHERE id = $id",
    ),
    connectionDelete: p("DELETE FROM connections WHERE id = $id"),
    connectionCount: p<{ n: number }>(`SELECT COUNT(*) AS n FROM connections WHERE ${CONNECTION_KEY}`),
    /** The connections of an integration, with what their match keys derive from. */
    connectionsKeyed: p<KeyedConnectionRow>(
      `SELECT environment_id, provider_config_key, connection_id, connection_config, metadata FROM connections WHERE ${CONNECTION_KEY}`,
    ),
    /** Every connection, for filling the match-key tables on migration. */
    connectionsKeyedAll: p<KeyedConnectionRow>(
      "SELECT environment_id, provider_config_key, connection_id, connection_config, metadata FROM connections",
    ),
  };
}

/** The match-key tables (sqlite-match-keys.ts): their upkeep and the matching lookups. */
function matchKeyStatements(p: Prepare) {
  return {
    /** The taken slots of a block, in order. */
    watchKeySlots: p<{ slot: number }>(
      "SELECT slot FROM connection_watch_keys WHERE slot BETWEEN $first AND $last ORDER BY slot",
    ),
    emailKeySlots: p<{ slot: number }>(
      "SELECT slot FROM connection_email_keys WHERE slot BETWEEN $first AND $last ORDER BY slot",
    ),
    // OR IGNORE: a taken slot (a shared block) changes nothing, and the writer looks for a free one.
    watchKeyInsert: p(
      "INSERT OR IGNORE INTO connection_watch_keys (slot, environment_id, provider_config_key, uri, connection_id) VALUES ($slot, $environment_id, $provider_config_key, $value, $connection_id)",
    ),
    emailKeyInsert: p(
      "INSERT OR IGNORE INTO connection_email_keys (slot, environment_id, provider_config_key, kind, value, connection_id) VALUES ($slot, $environment_id, $provider_config_key, $kind, $value, $connection_id)",
    ),
    watchKeyDelete: p(
      "DELETE FROM connection_watch_keys WHERE slot BETWEEN $first AND $last AND uri = $value AND connection_id = $connection_id AND environment_id = $environment_id AND provider_config_key = $provider_config_key",
    ),
    emailKeyDelete: p(
      "DELETE FROM connection_email_keys WHERE slot BETWEEN $first AND $last AND kind = $kind AND value = $value AND connection_id = $connection_id AND environment_id = $environment_id AND provider_config_key = $provider_config_key",
    ),
    lookupWatchUri: p<MatchedRow & { provider: string | null; forward_webhooks: number | null }>(LOOKUP_SQL.watchUri),
    lookupEmailKind: p<{ connection_id: string }>(LOOKUP_SQL.emailKind),
    lookupEmail: p<MatchedRow & { kind: number }>(LOOKUP_SQL.email),
    lookupEmailWithNango: p<MatchedRow & { kind: number }>(LOOKUP_SQL.emailWithNango),
  };
}
