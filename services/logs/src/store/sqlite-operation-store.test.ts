import { Database } from "bun:sqlite";
import { operationStoreConformance } from "./operation-store.conformance.ts";
import { SqliteOperationStore } from "./sqlite-operation-store.ts";

operationStoreConformance("SqliteOperationStore", async () => {
  const db = new Database(":memory:");
  return { store: new SqliteOperationStore(db), cleanup: async () => db.close() };
});
