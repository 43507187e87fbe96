import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { type CommonConfig, openDatabase } from "@junction/platform";
import { SqliteChannelStore } from "./store/sqlite-store.ts";
import type { ChannelStore } from "./store/store.ts";

/** Opens the store the config asks for: a SQLite file (given or under the data dir) or MongoDB. */
export async function openChannelStore(cfg: CommonConfig, db?: Database): Promise<ChannelStore> {
  if (cfg.store === "mongodb") {
    // Loaded only when asked for: the MongoDB driver is most of the JavaScript heap of a process that
    // imports it, and the embedded default never uses it.
    const { MongoChannelStore } = await import("./store/mongo-store.ts");
    return MongoChannelStore.connect(cfg.mongodbUrl as string, cfg.mongodbDatabase);
  }
  return new SqliteChannelStore(
    db ?? openDatabase(join(cfg.dataDir, "channel.sqlite"), { cacheMb: cfg.sqliteCacheMb }),
  );
}
