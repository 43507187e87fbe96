import { mongoForTests } from "@junction/platform/testing/mongo-for-tests";
import { MongoScriptRunStore } from "./mongo-script-run-store.ts";
import { MongoScriptStore } from "./mongo-script-store.ts";
import { scriptRunStoreConformance } from "./script-run-store.conformance.ts";
import { scriptStoreConformance } from "./script-store.conformance.ts";

const mongo = mongoForTests("script and run stores");
if (mongo) {
  scriptRunStoreConformance("MongoScriptRunStore", async (maxLogBytes) => {
    const name = mongo.freshDatabaseName("junction_script_runs_test");
    const store = await MongoScriptRunStore.connect(mongo.url(), name, maxLogBytes);
    return { store, cleanup: () => store.close().then(() => mongo.drop(name)) };
  });

  scriptStoreConformance("MongoScriptStore", async () => {
    const name = mongo.freshDatabaseName("junction_scripts_test");
    const store = await MongoScriptStore.connect(mongo.url(), name);
    return { store, cleanup: () => store.close().then(() => mongo.drop(name)) };
  });
}
