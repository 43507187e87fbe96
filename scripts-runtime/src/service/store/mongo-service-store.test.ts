import { mongoForTests } from "@junction/platform/testing/mongo-for-tests";
import { MongoScriptsServiceStore } from "./mongo-service-store.ts";
import { serviceStoreConformance } from "./service-store.conformance.ts";

const mongo = mongoForTests("scripts service store");
if (mongo) {
  serviceStoreConformance("MongoScriptsServiceStore", async () => {
    const name = mongo.freshDatabaseName("junction_scripts_service_test");
    const store = await MongoScriptsServiceStore.open(mongo.client().db(name));
    return { store, cleanup: () => mongo.drop(name) };
  });
}
