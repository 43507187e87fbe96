import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { type CommonConfig, openDatabase } from "@junction/platform";
import { MongoChannelStore } from "./store/mongo-store.ts";
import { SqliteChannelStore } from "./store/sqlite-store.ts";
import type { ChannelStore } from "./store/store.ts";

/** Opens the store the config asks for: a SQLite file (given or under the data dir) or MongoDB. */
export async function openChannelStore(cfg: CommonConfig, db?: Database): Promise<ChannelStore> {
  if (cfg.store === "mongodb") return MongoChannelStore.connect(cfg.mongodbUrl as string, cfg.mongodbDatabase);
  return new SqliteChannelStore(db ?? openDatabase(join(cfg.dataDir, "channel.sqlite")));
}
