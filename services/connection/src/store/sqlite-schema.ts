/**
 * Schema of the connection service in SQLite, applied by `migrate(db, "connection", MIGRATIONS)`.
 * Append-only: never edit a shipped migration, add a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE environments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );

  CREATE TABLE secret_keys (
    id TEXT PRIMARY KEY,
    environment_id TEXT NOT NULL,
    name TEXT NOT NULL,
    prefix TEXT NOT NULL,
    hash TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE INDEX secret_keys_by_environment ON secret_keys (environment_id, created_at);

  CREATE TABLE integrations (
    environment_id TEXT NOT NULL,
    unique_key TEXT NOT NULL,
    provider TEXT NOT NULL,
    display_name TEXT NOT NULL,
    client_id TEXT NOT NULL,
    client_secret_enc TEXT,
    scopes TEXT NOT NULL,
    overrides TEXT NOT NULL,
    forward_webhooks INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (environment_id, unique_key)
  );

  -- metadata, connection_config, end_user and errors are JSON. The columns after them are derived
  -- from the JSON on every write, so that the matching lookups are index searches.
  CREATE TABLE connections (
    id TEXT PRIMARY KEY,
    environment_id TEXT NOT NULL,
    provider_config_key TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    provider TEXT NOT NULL,
    credentials_enc TEXT,
    credentials_expires_at INTEGER,
    connection_config TEXT NOT NULL,
    metadata TEXT NOT NULL,
    end_user TEXT,
    errors TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    email_address_hash TEXT,
    meta_email_address_norm TEXT,
    meta_email_norm TEXT,
    end_user_id TEXT,
    UNIQUE (environment_id, provider_config_key, connection_id)
  );
  CREATE INDEX connections_newest ON connections (environment_id, created_at, id);
  CREATE INDEX connections_newest_by_integration
    ON connections (environment_id, provider_config_key, created_at, id);
  CREATE INDEX connections_by_end_user ON connections (environment_id, end_user_id, created_at, id)
    WHERE end_user_id IS NOT NULL;
  CREATE INDEX connections_by_email_hash ON connections (environment_id, provider_config_key, email_address_hash)
    WHERE email_address_hash IS NOT NULL;
  CREATE INDEX connections_by_meta_email_address
    ON connections (environment_id, provider_config_key, meta_email_address_norm)
    WHERE meta_email_address_norm IS NOT NULL;
  CREATE INDEX connections_by_meta_email ON connections (environment_id, provider_config_key, meta_email_norm)
    WHERE meta_email_norm IS NOT NULL;

  -- One row per (connection, watched URI) of the watch_uris match key; rewritten in the
  -- transaction of every write that touches metadata or moves a connection (spec: Webhook-to-connection
  -- matching, rule 1). WITHOUT ROWID so that the lookup index also carries connection_pk (covering).
  CREATE TABLE connection_watch_uris (
    connection_pk TEXT NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    environment_id TEXT NOT NULL,
    provider_config_key TEXT NOT NULL,
    uri TEXT NOT NULL,
    PRIMARY KEY (connection_pk, uri)
  ) WITHOUT ROWID;
  CREATE INDEX connection_watch_uris_lookup ON connection_watch_uris (environment_id, provider_config_key, uri);
  `,
  // OAuth: test mode, connect sessions, single-use states, refresh leases (OAuth issue).
  `
  ALTER TABLE integrations ADD COLUMN use_test_credentials INTEGER NOT NULL DEFAULT 0;

  -- Tokens are bearer secrets: only their SHA-256 is kept.
  CREATE TABLE connect_sessions (
    id TEXT PRIMARY KEY,
    environment_id TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    end_user TEXT NOT NULL,
    organization TEXT,
    allowed_integrations TEXT NOT NULL,
    integrations_config_defaults TEXT NOT NULL,
    reconnect TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX connect_sessions_by_expiry ON connect_sessions (expires_at);

  -- consumed_at is set once, by the callback; a used state is kept until purged so that a replay
  -- is told apart from a state that never existed.
  CREATE TABLE oauth_states (
    state_hash TEXT PRIMARY KEY,
    environment_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    provider_config_key TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    code_verifier_enc TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    scopes TEXT NOT NULL,
    test_credentials INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    consumed_at INTEGER
  );
  CREATE INDEX oauth_states_by_expiry ON oauth_states (expires_at);

  -- One row per lease (token refresh of one connection); taken by compare-and-set on expires_at.
  CREATE TABLE leases (
    lease_key TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );
  `,
  // Covering lookups: each matching query is one index descent that already holds connection_id,
  // with no join back through the connections table (match time must not grow with the table).
  `
  ALTER TABLE connection_watch_uris ADD COLUMN connection_id TEXT NOT NULL DEFAULT '';
  UPDATE connection_watch_uris
    SET connection_id = (SELECT c.connection_id FROM connections c WHERE c.id = connection_watch_uris.connection_pk);
  DROP INDEX connection_watch_uris_lookup;
  CREATE INDEX connection_watch_uris_lookup
    ON connection_watch_uris (environment_id, provider_config_key, uri, connection_id);

  DROP INDEX connections_by_email_hash;
  CREATE INDEX connections_by_email_hash
    ON connections (environment_id, provider_config_key, email_address_hash, connection_id)
    WHERE email_address_hash IS NOT NULL;
  DROP INDEX connections_by_meta_email_address;
  CREATE INDEX connections_by_meta_email_address
    ON connections (environment_id, provider_config_key, meta_email_address_norm, connection_id)
    WHERE meta_email_address_norm IS NOT NULL;
  DROP INDEX connections_by_meta_email;
  CREATE INDEX connections_by_meta_email
    ON connections (environment_id, provider_config_key, meta_email_norm, connection_id)
    WHERE meta_email_norm IS NOT NULL;
  `,
  // Matching through two compact tables (sqlite-match-keys.ts): a row per (connection, watch URI)
  // and a row per (connection, rule-2 tier), at a slot of the block that a hash of the key selects,
  // so that each lookup is one search on an INTEGER PRIMARY KEY. They replace connection_watch_uris
  // and the three email indexes (the email columns of connections are still written, no longer
  // indexed). The store fills them from the existing connections when it finds
  // connection_match_keys_backfill (the hashes are computed in JavaScript), then drops that table.
  `
  CREATE TABLE connection_watch_keys (
    slot INTEGER PRIMARY KEY,
    environment_id TEXT NOT NULL,
    provider_config_key TEXT NOT NULL,
    uri TEXT NOT NULL,
    connection_id TEXT NOT NULL
  );
  -- kind: 1 connection_config.emailAddressHash, 2 metadata.emailAddress, 3 metadata.email (normalized).
  CREATE TABLE connection_email_keys (
    slot INTEGER PRIMARY KEY,
    environment_id TEXT NOT NULL,
    provider_config_key TEXT NOT NULL,
    kind INTEGER NOT NULL,
    value TEXT NOT NULL,
    connection_id TEXT NOT NULL
  );
  CREATE TABLE connection_match_keys_backfill (pending INTEGER NOT NULL);
  INSERT INTO connection_match_keys_backfill (pending) VALUES (1);
  DROP TABLE connection_watch_uris;
  DROP INDEX connections_by_email_hash;
  DROP INDEX connections_by_meta_email_address;
  DROP INDEX connections_by_meta_email;
  `,
  // Rule 1 also reads a provider's second watch-URI key (Nango's name): the match keys are
  // rebuilt from the connections on the next open, as after migration 4.
  `
  DELETE FROM connection_watch_keys;
  DELETE FROM connection_email_keys;
  CREATE TABLE IF NOT EXISTS connection_match_keys_backfill (pending INTEGER NOT NULL);
  INSERT INTO connection_match_keys_backfill (pending)
    SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM connection_match_keys_backfill);
  `,
  // Nango's tags on connections (JSON object, lower-case keys) and the connect sessions that set them;
  // sessions' per-integration overrides. A session created with tags only has end_user 'null'.
  `
  ALTER TABLE connections ADD COLUMN tags TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE integrations ADD COLUMN imported_email_hashes INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE connect_sessions ADD COLUMN overrides TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE connect_sessions ADD COLUMN tags TEXT NOT NULL DEFAULT '{}';
  `,
  // Nango's webhook_url_override on connections and on the connect sessions that set it; '' is none.
  `
  ALTER TABLE connections ADD COLUMN webhook_url_override TEXT NOT NULL DEFAULT '';
  ALTER TABLE connect_sessions ADD COLUMN webhook_url_override TEXT NOT NULL DEFAULT '';
  `,
  // The provider's own settings of an integration (JSON object of strings) and its managed channels switch.
  `
  ALTER TABLE integrations ADD COLUMN provider_settings TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE integrations ADD COLUMN managed_channels INTEGER NOT NULL DEFAULT 0;
  `,
  // Providers defined over the API (POST /providers): the validated definition as JSON, by name.
  `
  CREATE TABLE provider_definitions (
    name TEXT PRIMARY KEY,
    definition TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
  `,
  // An OAUTH2 provider's connect fields typed on the connect page's form, kept with the state for the callback.
  `
  ALTER TABLE oauth_states ADD COLUMN connection_config TEXT NOT NULL DEFAULT '{}';
  `,
  // The origin of the page that started an authorization: the only one its callback page posts to; '' is none.
  `
  ALTER TABLE oauth_states ADD COLUMN opener_origin TEXT NOT NULL DEFAULT '';
  `,
  // The frontend SDK's WebSocket waiting for an authorization's result; '' is none.
  `
  ALTER TABLE oauth_states ADD COLUMN ws_client_id TEXT NOT NULL DEFAULT '';
  `,
  // Strict intake of notifications (unknown channels refused); NULL: never set, managed_channels decides.
  `
  ALTER TABLE integrations ADD COLUMN strict_channels INTEGER;
  `,
  // Scoped secret keys (a JSON array; empty: full access) and when each was last used.
  `
  ALTER TABLE secret_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE secret_keys ADD COLUMN last_used_at INTEGER;
  `,
  // An authorization that never came back: its state, used by the sweep that recorded it as abandoned (1), so
  // that a callback arriving later is told it expired and is not recorded a second time. The partial index
  // keeps the sweep's search to the states still unused.
  `
  ALTER TABLE oauth_states ADD COLUMN abandoned INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX oauth_states_unused_by_expiry ON oauth_states (expires_at) WHERE consumed_at IS NULL;
  `,
];

/**
 * The webhook URL override of a match-key row's connection: one search of the connections' unique key
 * per row found. A correlated subquery, not a join: on a store's own connection a join of the same
 * tables measured about twice the CPU of separate statements, the subquery about that of one
 * (docs/benchmarks.md).
 */
const OVERRIDE = (keys: string) =>
  `(SELECT webhook_url_override FROM connections WHERE connections.environment_id = $environment_id
      AND connections.provider_config_key = $provider_config_key AND connections.connection_id = ${keys}.connection_id)`;

/** A column of the integration being matched: a subquery of constants, evaluated once per lookup. */
const INTEGRATION = (column: string) =>
  `(SELECT ${column} FROM integrations WHERE environment_id = $environment_id AND unique_key = $provider_config_key)`;

/**
 * The matching lookups (spec: Webhook-to-connection matching), each one search of one block
 * ($first to $last, see sqlite-match-keys.ts) whose rows are checked against the exact environment,
 * integration, kind and value; rule 1 and rule 2 whole also read each matched connection's webhook
 * URL override. Exported so that a test can check with EXPLAIN QUERY PLAN that each is a search of
 * the primary key.
 */
export const LOOKUP_SQL = {
  /**
   * Rule 1: the watch URI $value, with the override and the integration's provider and forwarding
   * (a forward needs them; NULL without an integration row, which the store does not require of a
   * connection, though the service deletes an integration's connections and keys with it).
   */
  watchUri: `SELECT connection_id, ${OVERRIDE("connection_watch_keys")} AS webhook_url_override,
      ${INTEGRATION("provider")} AS provider, ${INTEGRATION("forward_webhooks")} AS forward_webhooks
    FROM connection_watch_keys
    WHERE slot BETWEEN $first AND $last AND uri = $value
      AND environment_id = $environment_id AND provider_config_key = $provider_config_key`,
  /** One tier of rule 2: $kind equal to $value. */
  emailKind: `SELECT connection_id FROM connection_email_keys
    WHERE slot BETWEEN $first AND $last AND kind = $kind AND value = $value
      AND environment_id = $environment_id AND provider_config_key = $provider_config_key`,
  /**
   * Rule 2's three tiers at once: emailAddressHash equal to $hash, or a metadata email equal to
   * $email, with the override.
   */
  email: `SELECT kind, connection_id, ${OVERRIDE("connection_email_keys")} AS webhook_url_override
    FROM connection_email_keys
    WHERE slot BETWEEN $first AND $last
      AND ((kind = 1 AND value = $hash) OR (kind IN (2, 3) AND value = $email))
      AND environment_id = $environment_id AND provider_config_key = $provider_config_key`,
  /**
   * The same, emailAddressHash also equal to Nango's $nango_hash (another block: a second search in
   * the same statement), for integrations with imported connections. The two parts never return the
   * same row: their values differ.
   */
  emailWithNango: `SELECT kind, connection_id, ${OVERRIDE("connection_email_keys")} AS webhook_url_override
    FROM connection_email_keys
    WHERE slot BETWEEN $first AND $last
      AND ((kind = 1 AND value = $hash) OR (kind IN (2, 3) AND value = $email))
      AND environment_id = $environment_id AND provider_config_key = $provider_config_key
    UNION ALL
    SELECT kind, connection_id, ${OVERRIDE("connection_email_keys")}
    FROM connection_email_keys
    WHERE slot BETWEEN $nango_first AND $nango_last AND kind = 1 AND value = $nango_hash
      AND environment_id = $environment_id AND provider_config_key = $provider_config_key`,
} as const;
