import { mongoForTests } from "@junction/platform/testing/mongo-for-tests";
import { deliveryStoreConformance } from "./delivery-store.conformance.ts";
import { MongoWebhookStore } from "./mongo-store.ts";
import { webhookSettingsStoreConformance } from "./store.conformance.ts";

const mongo = mongoForTests("webhook store");
if (mongo) {
  const factory = async () => {
    const name = mongo.freshDatabaseName("junction_webhook_test");
    const store = await MongoWebhookStore.connect(mongo.url(), name);
    return { store, cleanup: () => store.close().then(() => mongo.drop(name)) };
  };
  webhookSettingsStoreConformance("MongoWebhookStore", factory);
  deliveryStoreConformance("MongoWebhookStore", factory);
}
