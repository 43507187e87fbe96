import type { Database } from "bun:sqlite";
import { type CommonConfig, type ReadinessCheck, sqliteCheck } from "@junction/platform";

/** The store /ready asks about, and what closing its check takes. */
export interface StoreReadiness {
  checks: ReadinessCheck[];
  close(): Promise<void>;
}

/**
 * The process's store as /ready asks it: MongoDB when the store is MongoDB (its module loaded only then),
 * otherwise the process's SQLite file when it has one.
 */
export async function storeReadiness(common: CommonConfig, db: Database | undefined): Promise<StoreReadiness> {
  if (common.store === "mongodb") {
    const { mongoCheck } = await import("@junction/platform/mongo-check");
    const mongo = mongoCheck("store", common.mongodbUrl ?? "", common.mongodbDatabase);
    return { checks: [mongo], close: () => mongo.close() };
  }
  return { checks: db ? [sqliteCheck("store", db)] : [], close: async () => {} };
}
