import type { Database } from "bun:sqlite";
import type { SealedClientSecret, SealedCredentials, SecretRewriteStore } from "./secret-rewrite-store.ts";

interface CredentialsRow {
  id: string;
  environment_id: string;
  provider_config_key: string;
  connection_id: string;
  credentials_enc: string;
}

/** SecretRewriteStore on the connection service's SQLite file: each swap is one UPDATE with its check. */
export class SqliteSecretRewrite implements SecretRewriteStore {
  private readonly scan;
  private readonly swap;
  private readonly scanSecrets;
  private readonly swapSecret;
  private readonly ofIntegration;

  constructor(db: Database) {
    this.scan = db.query<CredentialsRow, [string, number]>(
      `SELECT id, environment_id, provider_config_key, connection_id, credentials_enc FROM connections
       WHERE id > ? AND credentials_enc IS NOT NULL ORDER BY id LIMIT ?`,
    );
    this.ofIntegration = db.query<CredentialsRow, [string, string]>(
      `SELECT id, environment_id, provider_config_key, connection_id, credentials_enc FROM connections
       WHERE environment_id = ? AND provider_config_key = ? AND credentials_enc IS NOT NULL`,
    );
    this.swap = db.query(`UPDATE connections SET credentials_enc = ? WHERE id = ? AND credentials_enc = ?`);
    this.scanSecrets = db.query<{ environment_id: string; unique_key: string; client_secret_enc: string }, []>(
      `SELECT environment_id, unique_key, client_secret_enc FROM integrations
       WHERE client_secret_enc IS NOT NULL ORDER BY environment_id, unique_key`,
    );
    this.swapSecret = db.query(
      `UPDATE integrations SET client_secret_enc = ?
       WHERE environment_id = ? AND unique_key = ? AND client_secret_enc = ?`,
    );
  }

  async scanCredentials(afterId: string, limit: number): Promise<SealedCredentials[]> {
    return this.scan.all(afterId, limit).map(sealedFromRow);
  }

  /** Within the caller's transaction: rewrites the credentials of an integration's connections. */
  resealIntegration(environmentId: string, uniqueKey: string, reseal: (moved: SealedCredentials) => string): void {
    for (const row of this.ofIntegration.all(environmentId, uniqueKey)) {
      const next = reseal(sealedFromRow(row));
      if (next !== row.credentials_enc) this.swap.run(next, row.id, row.credentials_enc);
    }
  }

  finalize(): void {
    for (const q of [this.scan, this.swap, this.scanSecrets, this.swapSecret, this.ofIntegration]) q.finalize();
  }

  async swapCredentials(id: string, expected: string, next: string): Promise<boolean> {
    return this.swap.run(next, id, expected).changes === 1;
  }

  async scanClientSecrets(): Promise<SealedClientSecret[]> {
    return this.scanSecrets.all().map((r) => ({
      environmentId: r.environment_id,
      uniqueKey: r.unique_key,
      clientSecretEnc: r.client_secret_enc,
    }));
  }

  async swapClientSecret(environmentId: string, uniqueKey: string, expected: string, next: string): Promise<boolean> {
    return this.swapSecret.run(next, environmentId, uniqueKey, expected).changes === 1;
  }
}

function sealedFromRow(r: CredentialsRow): SealedCredentials {
  return {
    id: r.id,
    environmentId: r.environment_id,
    providerConfigKey: r.provider_config_key,
    connectionId: r.connection_id,
    credentialsEnc: r.credentials_enc,
  };
}
