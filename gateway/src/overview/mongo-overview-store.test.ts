import { mongoForTests } from "@junction/platform/testing/mongo-for-tests";
import { MongoOverviewStore } from "./mongo-overview-store.ts";
import { overviewStoreConformance } from "./overview-store.conformance.ts";

const mongo = mongoForTests("overview store");
if (mongo) {
  overviewStoreConformance("MongoOverviewStore", async () => {
    const name = mongo.freshDatabaseName("junction_overview_test");
    const store = await MongoOverviewStore.connect(mongo.url(), name);
    return { store, cleanup: () => store.close().then(() => mongo.drop(name)) };
  });
}
