import { afterAll, beforeAll } from "bun:test";
import { existsSync } from "node:fs";
import { MongoClient } from "mongodb";
import { MongoChannelStore } from "./mongo-store.ts";
import { channelStoreConformance } from "./store.conformance.ts";

// Runs against MONGODB_URL when set, else against a mongo:7 container when a Docker engine is
// reachable; with neither it says so on one line and registers no test.
const configuredUrl = process.env.MONGODB_URL;
const dockerReachable = Boolean(process.env.DOCKER_HOST) || existsSync("/var/run/docker.sock");

if (!configuredUrl && !dockerReachable) {
  console.log("MongoDB conformance skipped (channel store): set MONGODB_URL or provide a Docker engine");
} else {
  let client: MongoClient;
  let stopContainer: (() => Promise<unknown>) | undefined;
  let databases = 0;
  const runId = `${process.pid}_${Date.now()}`;

  beforeAll(async () => {
    let url = configuredUrl;
    if (!url) {
      // Imported only here: without Docker, testcontainers is never loaded.
      const { GenericContainer, Wait } = await import("testcontainers");
      const container = await new GenericContainer("mongo:7")
        .withExposedPorts(27017)
        .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
        .start();
      stopContainer = () => container.stop();
      url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
    }
    client = await new MongoClient(url).connect();
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    await stopContainer?.();
  }, 60_000);

  channelStoreConformance("MongoChannelStore", async () => {
    const db = client.db(`junction_channel_test_${runId}_${++databases}`);
    const store = await MongoChannelStore.open(db);
    return { store, cleanup: async () => void (await db.dropDatabase()) };
  });
}
