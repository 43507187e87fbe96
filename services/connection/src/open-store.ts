import type { Database } from "bun:sqlite";
import { openDatabase } from "@junction/platform";
import type { CommonConfig } from "@junction/platform";
import { join } from "node:path";
import { SqliteConnectionStore } from "./store/sqlite-store.ts";
import type { ConnectionServiceStore } from "./store/store.ts";

/** Opens the store the config asks for: a SQLite file (given or under the data dir) or MongoDB. */
export async function openConnectionStore(cfg: CommonConfig, db?: Database): Promise<ConnectionServiceStore> {
  if (cfg.store === "mongodb") {
    // Loaded only when asked for: the MongoDB driver is most of the JavaScript heap of a process that
    // imports it, and the embedded default never uses it.
    const { MongoConnectionStore } = await import("./store/mongo-store.ts");
    return MongoConnectionStore.connect(cfg.mongodbUrl as string, cfg.mongodbDatabase);
  }
  return new SqliteConnectionStore(
    db ?? openDatabase(join(cfg.dataDir, "connection.sqlite"), { cacheMb: cfg.sqliteCacheMb }),
  );
}
