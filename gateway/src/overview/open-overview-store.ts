import type { Database } from "bun:sqlite";
import type { CommonConfig } from "@junction/platform";
import { type OverviewStore, SqliteOverviewStore } from "./overview-store.ts";

/**
 * The overview's store as `common.store` asks: the given SQLite database, or MongoDB (its driver loaded
 * only then), so that gateways sharing a MongoDB add to the same buckets. `close` is MongoDB's client.
 */
export async function openOverviewStore(
  common: Pick<CommonConfig, "store" | "mongodbUrl" | "mongodbDatabase">,
  db: () => Database,
): Promise<{ store: OverviewStore; close(): Promise<void> }> {
  if (common.store === "mongodb") {
    const { MongoOverviewStore } = await import("./mongo-overview-store.ts");
    const store = await MongoOverviewStore.connect(common.mongodbUrl as string, common.mongodbDatabase);
    return { store, close: () => store.close() };
  }
  return { store: new SqliteOverviewStore(db()), close: async () => undefined };
}
