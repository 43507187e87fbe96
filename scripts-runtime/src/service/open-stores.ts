import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { type CommonConfig, openDatabase } from "@junction/platform";
import { SqliteScriptRunStore } from "../store/sqlite-script-run-store.ts";
import { SqliteScriptStore } from "../store/sqlite-script-store.ts";
import type { ScriptRunStore, ScriptStore } from "../store/stores.ts";
import type { ScriptsServiceStore } from "./store/service-store.ts";
import { SqliteScriptsServiceStore } from "./store/sqlite-service-store.ts";
import type { RecordStore } from "../records/record-store.ts";
import { SqliteRecordStore } from "../records/sqlite-record-store.ts";

/** The stores of the scripts service, on one database. */
export interface ScriptsStores {
  scripts: ScriptStore;
  runs: ScriptRunStore;
  service: ScriptsServiceStore;
  records: RecordStore;
  close(): Promise<void>;
}

/**
 * Opens the stores the config asks for: on a SQLite database (the shared one given, or
 * `scripts.sqlite` under the data dir) or on MongoDB (one client for the three).
 */
export async function openScriptsStores(cfg: CommonConfig, db?: Database): Promise<ScriptsStores> {
  if (cfg.store === "mongodb") {
    // Loaded only when asked for: the MongoDB driver is most of the JavaScript heap of a process that
    // imports it, and the embedded default never uses it.
    const { openMongoScriptsStores } = await import("./open-mongo-stores.ts");
    return openMongoScriptsStores(cfg.mongodbUrl as string, cfg.mongodbDatabase);
  }
  const owned = db === undefined;
  const database = db ?? openDatabase(join(cfg.dataDir, "scripts.sqlite"), { cacheMb: cfg.sqliteCacheMb });
  const stores = {
    scripts: new SqliteScriptStore(database),
    runs: new SqliteScriptRunStore(database),
    service: new SqliteScriptsServiceStore(database),
    records: new SqliteRecordStore(database),
  };
  return {
    ...stores,
    async close() {
      await Promise.all([stores.scripts.close(), stores.runs.close(), stores.service.close(), stores.records.close()]);
      if (owned) database.close();
    },
  };
}
