import { afterAll, beforeAll } from "bun:test";
import { existsSync } from "node:fs";
import { randomToken } from "@junction/platform";
import { MongoClient } from "mongodb";
import { MongoWebhookStore } from "./mongo-store.ts";
import { deliveryStoreConformance } from "./delivery-store.conformance.ts";
import { webhookSettingsStoreConformance } from "./store.conformance.ts";

// Runs against MONGODB_URL when given, else a throw-away mongo:7 container when a Docker engine is
// reachable. Without either it registers no tests and says so on one line.
const dockerReachable = Boolean(process.env.DOCKER_HOST) || existsSync("/var/run/docker.sock");

if (process.env.MONGODB_URL || dockerReachable) {
  let url = process.env.MONGODB_URL ?? "";
  let stopContainer: (() => Promise<unknown>) | undefined;
  let admin: MongoClient;

  beforeAll(async () => {
    if (!url) {
      const { GenericContainer, Wait } = await import("testcontainers");
      const container = await new GenericContainer("mongo:7")
        .withExposedPorts(27017)
        .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
        .start();
      stopContainer = () => container.stop();
      url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
    }
    admin = await MongoClient.connect(url);
  }, 180_000);

  afterAll(async () => {
    await admin?.close();
    await stopContainer?.();
  }, 60_000);

  const factory = async () => {
    const dbName = `junction_webhook_test_${randomToken(6).replace(/[^a-zA-Z0-9]/g, "x")}`;
    const store = await MongoWebhookStore.connect(url, dbName);
    return {
      store,
      cleanup: async () => {
        await store.close();
        await admin.db(dbName).dropDatabase();
      },
    };
  };
  webhookSettingsStoreConformance("MongoWebhookStore", factory);
  deliveryStoreConformance("MongoWebhookStore", factory);
} else {
  console.log("MongoDB conformance skipped (webhook store): set MONGODB_URL or provide a Docker engine");
}
