import type { ChannelFilter } from "./records.ts";

/**
 * Schema of the channel registry in SQLite, applied by `migrate(db, "channel", MIGRATIONS)`.
 * Append-only: never edit a shipped migration, add a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE channels (
    environment_id TEXT NOT NULL,
    id TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    provider_config_key TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    resource_uri TEXT NOT NULL,
    expiration INTEGER,
    state TEXT NOT NULL CHECK (state IN ('active', 'stopped', 'expired')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    stopped_at INTEGER,
    last_message_number INTEGER NOT NULL,
    token TEXT,
    PRIMARY KEY (environment_id, id)
  );
  CREATE INDEX channels_newest ON channels (environment_id, created_at, id);
  CREATE INDEX channels_by_integration ON channels (environment_id, provider_config_key, created_at, id);
  CREATE INDEX channels_by_connection ON channels (environment_id, connection_id, created_at, id);
  CREATE INDEX channels_by_state_expiration ON channels (environment_id, state, expiration);
  `,
  `
  ALTER TABLE channels ADD COLUMN expiry_warned_at INTEGER;
  `,
  // Managed channels: one schedule slot per connection.
  `
  CREATE TABLE managed_slots (
    environment_id TEXT NOT NULL,
    provider_config_key TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    channel_id TEXT,
    stale_channel_id TEXT,
    due_at INTEGER,
    reason TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    generation INTEGER NOT NULL DEFAULT 0,
    claimed_by TEXT,
    claimed_until INTEGER,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (environment_id, provider_config_key, connection_id)
  ) STRICT;
  CREATE INDEX managed_slots_due ON managed_slots (environment_id, due_at);
  `,
  // Channel tokens sealed: the keyed digest notifications are checked against (the token column holds
  // the sealed token; rows without a digest hold it as given until the service seals them).
  `
  ALTER TABLE channels ADD COLUMN token_digest TEXT;
  `,
];

/** A row of `channels`. */
export interface ChannelRow {
  environment_id: string;
  id: string;
  resource_id: string;
  provider_config_key: string;
  connection_id: string;
  resource_uri: string;
  expiration: number | null;
  state: string;
  created_at: number;
  updated_at: number;
  stopped_at: number | null;
  last_message_number: number;
  token: string | null;
  expiry_warned_at: number | null;
  token_digest: string | null;
}

/**
 * Expiry of the due active channels (spec: lifecycle, "Time reaches expiration"). Parameters:
 * $environment_id, $now. Exported so that a test can check that it is an index search.
 */
export const EXPIRE_SQL = `UPDATE channels SET state = 'expired', updated_at = MAX(updated_at, $now)
  WHERE environment_id = $environment_id AND state = 'active' AND expiration <= $now RETURNING *`;

/** Effective-state conditions (spec: lifecycle, "Time reaches expiration"); `$now` is the reading time. */
const STATE_SQL = {
  active: "state = 'active' AND (expiration IS NULL OR expiration > $now)",
  expired: "(state = 'expired' OR (state = 'active' AND expiration <= $now))",
  stopped: "state = 'stopped'",
} as const;

/**
 * The listing statement for a filter. Parameters: $environment_id, $provider_config_key,
 * $connection_id, $now, $expiring_before (extra ones are ignored). Exported so that a test can check
 * with EXPLAIN QUERY PLAN that each filter is served by an index.
 */
export function listSql(filter: ChannelFilter): string {
  const where = ["environment_id = $environment_id"];
  if (filter.providerConfigKey !== undefined) where.push("provider_config_key = $provider_config_key");
  if (filter.connectionId !== undefined) where.push("connection_id = $connection_id");
  if (filter.state !== undefined) where.push(STATE_SQL[filter.state]);
  if (filter.expiringBefore !== undefined) where.push("expiration < $expiring_before");
  return `SELECT * FROM channels WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC`;
}
