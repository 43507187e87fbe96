import { mongoForTests } from "@junction/platform/testing/mongo-for-tests";
import { MongoOperationStore } from "./mongo-operation-store.ts";
import { operationStoreConformance } from "./operation-store.conformance.ts";

const mongo = mongoForTests("operation store");
if (mongo) {
  operationStoreConformance("MongoOperationStore", async () => {
    const name = mongo.freshDatabaseName("junction_logs_test");
    const store = await MongoOperationStore.connect(mongo.url(), name);
    return { store, cleanup: () => store.close().then(() => mongo.drop(name)) };
  });
}
