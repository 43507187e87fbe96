import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { type CommonConfig, openDatabase } from "@junction/platform";
import { SqliteWebhookStore } from "./store/sqlite-store.ts";
import type { WebhookServiceStore } from "./store/store.ts";

/** Opens the store the config asks for: a SQLite file (given or under the data dir) or MongoDB. */
export async function openWebhookStore(cfg: CommonConfig, db?: Database): Promise<WebhookServiceStore> {
  if (cfg.store === "mongodb") {
    // Loaded only when asked for: the MongoDB driver is most of the JavaScript heap of a process that
    // imports it, and the embedded default never uses it.
    const { MongoWebhookStore } = await import("./store/mongo-store.ts");
    return MongoWebhookStore.connect(cfg.mongodbUrl as string, cfg.mongodbDatabase);
  }
  return new SqliteWebhookStore(
    db ?? openDatabase(join(cfg.dataDir, "webhook.sqlite"), { cacheMb: cfg.sqliteCacheMb }),
  );
}
