import { openDatabase } from "@junction/platform";
import { overviewStoreConformance } from "./overview-store.conformance.ts";
import { SqliteOverviewStore } from "./overview-store.ts";

overviewStoreConformance("SqliteOverviewStore", async () => {
  const db = openDatabase(":memory:");
  return { store: new SqliteOverviewStore(db), cleanup: async () => db.close() };
});
