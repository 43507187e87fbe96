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
];
