import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { type CommonConfig, openDatabase } from "@junction/platform";
import type { OperationStore } from "./store/operation-store.ts";
import { SqliteOperationStore } from "./store/sqlite-operation-store.ts";

/** Opens the store the config asks for: a SQLite file (given, or `logs.sqlite` in the data dir) or MongoDB. */
export async function openOperationStore(cfg: CommonConfig, db?: Database): Promise<OperationStore> {
  if (cfg.store === "mongodb") {
    // Loaded only when asked for: the driver is most of the heap of a process that imports it.
    const { MongoOperationStore } = await import("./store/mongo-operation-store.ts");
    return MongoOperationStore.connect(cfg.mongodbUrl as string, cfg.mongodbDatabase);
  }
  return new SqliteOperationStore(db ?? openDatabase(join(cfg.dataDir, "logs.sqlite"), { cacheMb: cfg.sqliteCacheMb }));
}
