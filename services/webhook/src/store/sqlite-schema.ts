/**
 * Schema of the webhook service in SQLite, applied by `migrate(db, "webhook", MIGRATIONS)`.
 * Append-only: never edit a shipped migration, add a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  -- One row per environment, replaced whole. endpoints is a JSON array (at most 10 entries).
  CREATE TABLE webhook_settings (
    environment_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    endpoints TEXT NOT NULL,
    signing_secret_enc TEXT NOT NULL,
    signing_secret_prefix TEXT NOT NULL,
    previous_signing_secret_enc TEXT,
    previous_secret_valid_until INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  `,
  `
  -- The delivery queue: one row per message (its id is the webhook-id), its attempts, and the
  -- (channel id, message number) pairs already received, so that a notification is forwarded once.
  CREATE TABLE webhook_messages (
    id TEXT PRIMARY KEY,
    environment_id TEXT NOT NULL,
    type TEXT NOT NULL,
    provider_config_key TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    body BLOB NOT NULL,
    status TEXT NOT NULL,
    attempt_count INTEGER NOT NULL,
    round_attempts INTEGER NOT NULL,
    next_attempt_at INTEGER,
    last_error TEXT,
    delivered_endpoint_ids TEXT NOT NULL,
    lease_token TEXT,
    lease_until INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX webhook_messages_by_env ON webhook_messages (environment_id, id);
  CREATE INDEX webhook_messages_by_integration ON webhook_messages (environment_id, provider_config_key, id);
  CREATE INDEX webhook_messages_by_connection ON webhook_messages (environment_id, connection_id, id);
  CREATE INDEX webhook_messages_by_status ON webhook_messages (environment_id, status, id);
  CREATE INDEX webhook_messages_deliverable ON webhook_messages (next_attempt_at) WHERE status IN ('pending', 'failed');
  CREATE TABLE webhook_attempts (
    id TEXT PRIMARY KEY,
    message_id TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    url TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    latency_ms INTEGER NOT NULL,
    response_snippet TEXT NOT NULL,
    error TEXT,
    at INTEGER NOT NULL,
    number INTEGER NOT NULL
  );
  CREATE INDEX webhook_attempts_by_message ON webhook_attempts (message_id, at, id);
  CREATE TABLE webhook_notification_keys (
    environment_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_number INTEGER NOT NULL,
    notification_id TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    PRIMARY KEY (environment_id, channel_id, message_number)
  );
  CREATE INDEX webhook_notification_keys_by_time ON webhook_notification_keys (received_at);
  `,
  `
  -- Fewer B-trees per write (each is a page written per commit on the delivery hot path): attempts
  -- are keyed by what reads them (a message's attempts, oldest first), and the de-duplication keys
  -- by their primary key, instead of a rowid table plus a separate key index.
  CREATE TABLE webhook_attempts_v2 (
    id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    url TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    latency_ms INTEGER NOT NULL,
    response_snippet TEXT NOT NULL,
    error TEXT,
    at INTEGER NOT NULL,
    number INTEGER NOT NULL,
    PRIMARY KEY (message_id, at, number, id)
  ) WITHOUT ROWID;
  INSERT INTO webhook_attempts_v2 SELECT id, message_id, endpoint_id, url, status_code, latency_ms,
    response_snippet, error, at, number FROM webhook_attempts;
  DROP TABLE webhook_attempts;
  ALTER TABLE webhook_attempts_v2 RENAME TO webhook_attempts;
  CREATE TABLE webhook_notification_keys_v2 (
    environment_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_number INTEGER NOT NULL,
    notification_id TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    PRIMARY KEY (environment_id, channel_id, message_number)
  ) WITHOUT ROWID;
  INSERT INTO webhook_notification_keys_v2 SELECT environment_id, channel_id, message_number, notification_id,
    received_at FROM webhook_notification_keys;
  DROP TABLE webhook_notification_keys;
  ALTER TABLE webhook_notification_keys_v2 RENAME TO webhook_notification_keys;
  CREATE INDEX webhook_notification_keys_by_time ON webhook_notification_keys (received_at);
  `,
  `
  -- Fewer B-trees on the delivery hot path: a message is stored pending and then, usually, marked
  -- succeeded, and every index it is in is another page written per commit (measured: dropping these
  -- three cut Junction's CPU per forwarded notification by about a sixth). The delivery log's
  -- listing, newest first, walks the primary key (ids sort by creation; one environment per
  -- deployment), filtering by integration, status or type as it goes; the connection filter keeps its
  -- index (connections are many, each with few messages). Failed and exhausted messages, the ones
  -- "replay failed" and the status filter look for among many succeeded ones, keep a partial index
  -- that a message on the happy path never enters.
  DROP INDEX webhook_messages_by_env;
  DROP INDEX webhook_messages_by_integration;
  DROP INDEX webhook_messages_by_status;
  CREATE INDEX webhook_messages_unsuccessful ON webhook_messages (environment_id, status, id)
    WHERE status IN ('failed', 'exhausted');
  `,
  `
  -- The integration filter of the delivery log gets its index back: walking the primary key to find
  -- the few messages of a quiet integration among many of a busy one read every row. Written once per
  -- message (an integration never changes), unlike the status index the fourth migration removed.
  CREATE INDEX webhook_messages_by_integration ON webhook_messages (environment_id, provider_config_key, id);
  `,
  `
  -- A message for a connection with a webhook URL override goes to that URL ('' : the endpoints).
  ALTER TABLE webhook_messages ADD COLUMN target_url TEXT NOT NULL DEFAULT '';
  `,
  `
  -- De-duplication by a provider's own key (a Pub/Sub messageId, a batch item's hash), within an
  -- integration, for notifications that carry no channel id and message number.
  CREATE TABLE webhook_dedupe_keys (
    environment_id TEXT NOT NULL,
    provider_config_key TEXT NOT NULL,
    dedupe_key TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    PRIMARY KEY (environment_id, provider_config_key, dedupe_key)
  ) WITHOUT ROWID;
  CREATE INDEX webhook_dedupe_keys_by_time ON webhook_dedupe_keys (received_at);
  `,
  `
  -- Whether the current signing secret was ever shown (the answer that set the first endpoint, or a
  -- rotation). Settings that already have endpoints were set before the secret was shown this way.
  ALTER TABLE webhook_settings ADD COLUMN signing_secret_shown INTEGER NOT NULL DEFAULT 0;
  UPDATE webhook_settings SET signing_secret_shown = 1 WHERE endpoints <> '[]';
  `,
  `
  -- The de-duplication keys in the order they are received (a rowid table, appended to) with their key
  -- unique beside it, instead of a table keyed by the key plus an index of the time: one B-tree less per
  -- claim, and the one left that takes random keys (channel ids are UUIDs) holds no notification id or
  -- time. Pruning deletes the oldest rows, up to the first one received since the cut-off.
  CREATE TABLE webhook_notification_keys_v3 (
    seq INTEGER PRIMARY KEY,
    environment_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_number INTEGER NOT NULL,
    notification_id TEXT NOT NULL,
    received_at INTEGER NOT NULL
  );
  INSERT INTO webhook_notification_keys_v3 (environment_id, channel_id, message_number, notification_id, received_at)
    SELECT environment_id, channel_id, message_number, notification_id, received_at FROM webhook_notification_keys
    ORDER BY received_at;
  DROP TABLE webhook_notification_keys;
  ALTER TABLE webhook_notification_keys_v3 RENAME TO webhook_notification_keys;
  CREATE UNIQUE INDEX webhook_notification_keys_key
    ON webhook_notification_keys (environment_id, channel_id, message_number);
  CREATE TABLE webhook_dedupe_keys_v2 (
    seq INTEGER PRIMARY KEY,
    environment_id TEXT NOT NULL,
    provider_config_key TEXT NOT NULL,
    dedupe_key TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    received_at INTEGER NOT NULL
  );
  INSERT INTO webhook_dedupe_keys_v2 (environment_id, provider_config_key, dedupe_key, notification_id, received_at)
    SELECT environment_id, provider_config_key, dedupe_key, notification_id, received_at FROM webhook_dedupe_keys
    ORDER BY received_at;
  DROP TABLE webhook_dedupe_keys;
  ALTER TABLE webhook_dedupe_keys_v2 RENAME TO webhook_dedupe_keys;
  CREATE UNIQUE INDEX webhook_dedupe_keys_key ON webhook_dedupe_keys (environment_id, provider_config_key, dedupe_key);
  `,
];
