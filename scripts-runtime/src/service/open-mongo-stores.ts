import { MongoClient } from "mongodb";
import { MongoScriptRunStore } from "../store/mongo-script-run-store.ts";
import { MongoScriptStore } from "../store/mongo-script-store.ts";
import type { ScriptsStores } from "./open-stores.ts";
import { MongoScriptsServiceStore } from "./store/mongo-service-store.ts";
import { MongoRecordStore } from "../records/mongo-record-store.ts";

/** The scripts service's stores on MongoDB, sharing one client. */
export async function openMongoScriptsStores(url: string, database: string): Promise<ScriptsStores> {
  const client = await new MongoClient(url).connect();
  try {
    const mdb = client.db(database);
    const scripts = new MongoScriptStore(mdb);
    const runs = new MongoScriptRunStore(mdb);
    await Promise.all([scripts.createIndexes(), runs.createIndexes()]);
    const service = await MongoScriptsServiceStore.open(mdb);
    const records = await MongoRecordStore.open(client, mdb);
    return { scripts, runs, service, records, close: () => client.close() };
  } catch (err) {
    await client.close();
    throw err;
  }
}
