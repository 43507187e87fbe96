import { mongoForTests } from "@junction/platform/testing/mongo-for-tests";
import { MongoRecordStore } from "./mongo-record-store.ts";
import { recordStoreConformance } from "./record-store.conformance.ts";

const mongo = mongoForTests("records store");
if (mongo) {
  recordStoreConformance("MongoRecordStore", async () => {
    const name = mongo.freshDatabaseName("junction_records_test");
    const store = await MongoRecordStore.open(mongo.client(), mongo.client().db(name));
    return { store, cleanup: () => store.close().then(() => mongo.drop(name)) };
  });
}
