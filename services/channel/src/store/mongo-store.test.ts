import { mongoForTests } from "@junction/platform/testing/mongo-for-tests";
import { MongoChannelStore } from "./mongo-store.ts";
import { channelStoreConformance } from "./store.conformance.ts";

const mongo = mongoForTests("channel store");
if (mongo) {
  channelStoreConformance("MongoChannelStore", async () => {
    const name = mongo.freshDatabaseName("junction_channel_test");
    const store = await MongoChannelStore.open(mongo.client().db(name));
    return { store, cleanup: () => mongo.drop(name) };
  });
}
