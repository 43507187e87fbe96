import { mongoForTests } from "@junction/platform/testing/mongo-for-tests";
import { MongoConnectionStore } from "./mongo-store.ts";
import { connectionStoreConformance } from "./store.conformance.ts";

// The helper's MongoDB is a replica set, so the store's all-or-nothing writes use transactions.
const mongo = mongoForTests("connection store");
if (mongo) {
  connectionStoreConformance("MongoConnectionStore", async () => {
    const name = mongo.freshDatabaseName("junction_connection_test");
    const store = await MongoConnectionStore.connect(mongo.url(), name);
    return { store, cleanup: () => store.close().then(() => mongo.drop(name)) };
  });
}
