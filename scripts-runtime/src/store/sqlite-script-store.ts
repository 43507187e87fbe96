import type { Database } from "bun:sqlite";
import { migrate, openDatabase } from "@junction/platform";
import type { NewScriptVersion, ScriptVersionRecord, ScriptVersionSummary } from "./records.ts";
import { summarize } from "./records.ts";
import { MIGRATIONS, type ScriptVersionRow } from "./sqlite-schema.ts";
import type { ScriptStore } from "./stores.ts";

type Params = Record<string, string | number | null>;
const SCRIPT = "environment_id = $environment_id AND provider_config_key = $provider_config_key AND name = $name";
/** The latest version is the highest one still stored. */
const LATEST = `SELECT v.* FROM script_versions v WHERE v.version = (SELECT MAX(m.version) FROM script_versions m
  WHERE m.environment_id = v.environment_id AND m.provider_config_key = v.provider_config_key AND m.name = v.name)`;

/**
 * Uploaded scripts on SQLite. `script_heads` keeps the last version number of each script, even
 * after a removal, so that a re-uploaded script never reuses a number older runs refer to.
 */
export class SqliteScriptStore implements ScriptStore {
  private readonly write: <T>(fn: () => T) => T;
  private ownsDatabase = false;

  /** Applies the scripts migrations to `db` (opened with `openDatabase`). */
  constructor(private readonly db: Database) {
    migrate(db, "scripts", MIGRATIONS);
    const tx = db.transaction((fn: () => unknown) => fn());
    this.write = <T>(fn: () => T) => tx.immediate(fn) as T;
  }

  static open(path: string): SqliteScriptStore {
    const store = new SqliteScriptStore(openDatabase(path));
    store.ownsDatabase = true;
    return store;
  }

  async addVersion(input: NewScriptVersion): Promise<ScriptVersionRecord> {
    return this.write(() => {
      const key = keyParams(input.environmentId, input.providerConfigKey, input.name);
      const head = this.db
        .query<{ last_version: number }, [Params]>(
          `INSERT INTO script_heads (environment_id, provider_config_key, name, last_version)
           VALUES ($environment_id, $provider_config_key, $name, 1)
           ON CONFLICT (environment_id, provider_config_key, name) DO UPDATE SET last_version = last_version + 1
           RETURNING last_version`,
        )
        .get(key);
      const record: ScriptVersionRecord = { ...input, version: head?.last_version ?? 1 };
      this.db
        .query(
          `INSERT INTO script_versions (environment_id, provider_config_key, name, version, id, source, compiled, declaration, created_at)
           VALUES ($environment_id, $provider_config_key, $name, $version, $id, $source, $compiled, $declaration, $created_at)`,
        )
        .run({
          ...key,
          version: record.version,
          id: record.id,
          source: record.source,
          compiled: JSON.stringify(record.compiled),
          declaration: JSON.stringify(record.declaration),
          created_at: record.createdAt,
        });
      return record;
    });
  }

  async getLatest(environmentId: string, providerConfigKey: string, name: string): Promise<ScriptVersionRecord | null> {
    const row = this.db
      .query<ScriptVersionRow, [Params]>(
        `${LATEST} AND v.environment_id = $environment_id AND v.provider_config_key = $provider_config_key AND v.name = $name`,
      )
      .get(keyParams(environmentId, providerConfigKey, name));
    return row ? fromRow(row) : null;
  }

  async getVersion(
    environmentId: string,
    providerConfigKey: string,
    name: string,
    version: number,
  ): Promise<ScriptVersionRecord | null> {
    const row = this.db
      .query<ScriptVersionRow, [Params]>(`SELECT * FROM script_versions WHERE ${SCRIPT} AND version = $version`)
      .get({ ...keyParams(environmentId, providerConfigKey, name), version });
    return row ? fromRow(row) : null;
  }

  async listLatest(environmentId: string, providerConfigKey?: string): Promise<ScriptVersionRecord[]> {
    const byIntegration = providerConfigKey === undefined ? "" : " AND v.provider_config_key = $provider_config_key";
    const params: Params = { environment_id: environmentId };
    if (providerConfigKey !== undefined) params.provider_config_key = providerConfigKey;
    return this.db
      .query<ScriptVersionRow, [Params]>(
        `${LATEST} AND v.environment_id = $environment_id${byIntegration} ORDER BY v.provider_config_key, v.name`,
      )
      .all(params)
      .map(fromRow);
  }

  async listVersions(environmentId: string, providerConfigKey: string, name: string): Promise<ScriptVersionSummary[]> {
    return this.db
      .query<ScriptVersionRow, [Params]>(`SELECT * FROM script_versions WHERE ${SCRIPT} ORDER BY version DESC`)
      .all(keyParams(environmentId, providerConfigKey, name))
      .map((row) => summarize(fromRow(row)));
  }

  async remove(environmentId: string, providerConfigKey: string, name: string): Promise<number> {
    return this.db
      .query(`DELETE FROM script_versions WHERE ${SCRIPT}`)
      .run(keyParams(environmentId, providerConfigKey, name)).changes;
  }

  async removeIntegration(environmentId: string, providerConfigKey: string): Promise<number> {
    return this.db
      .query(
        "DELETE FROM script_versions WHERE environment_id = $environment_id AND provider_config_key = $provider_config_key",
      )
      .run({ environment_id: environmentId, provider_config_key: providerConfigKey }).changes;
  }

  /** Closes the database only when this store opened it (`open`); a shared one is its owner's to close. */
  async close(): Promise<void> {
    if (this.ownsDatabase) this.db.close();
  }
}

const keyParams = (environmentId: string, providerConfigKey: string, name: string) => ({
  environment_id: environmentId,
  provider_config_key: providerConfigKey,
  name,
});

function fromRow(row: ScriptVersionRow): ScriptVersionRecord {
  return {
    id: row.id,
    environmentId: row.environment_id,
    providerConfigKey: row.provider_config_key,
    name: row.name,
    version: row.version,
    source: row.source,
    compiled: JSON.parse(row.compiled),
    declaration: JSON.parse(row.declaration),
    createdAt: row.created_at,
  };
}
