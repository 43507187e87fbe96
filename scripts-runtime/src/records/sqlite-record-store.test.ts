import { Database } from "bun:sqlite";
import { recordStoreConformance } from "./record-store.conformance.ts";
import { SqliteRecordStore } from "./sqlite-record-store.ts";

recordStoreConformance("SqliteRecordStore", async () => {
  const db = new Database(":memory:");
  const store = new SqliteRecordStore(db);
  return { store, cleanup: async () => db.close() };
});
