import { afterAll, beforeAll } from "bun:test";
import { existsSync } from "node:fs";
import { MongoClient } from "mongodb";
import { MongoScriptsServiceStore } from "./mongo-service-store.ts";
import { serviceStoreConformance } from "./service-store.conformance.ts";

// Runs against MONGODB_URL when set, else against a mongo:7 container when a Docker engine is
// reachable; with neither it says so on one line and registers no test.
const configuredUrl = process.env.MONGODB_URL;
const dockerReachable = Boolean(process.env.DOCKER_HOST) || existsSync("/var/run/docker.sock");

if (!configuredUrl && !dockerReachable) {
  console.log("MongoDB conformance skipped (scripts service store): set MONGODB_URL or provide a Docker engine");
} else {
  let client: MongoClient;
  let stopContainer: (() => Promise<unknown>) | undefined;
  let databases = 0;
  const runId = `${process.pid}_${Date.now()}`;

  beforeAll(async () => {
    let url = configuredUrl;
    if (!url) {
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

  serviceStoreConformance("MongoScriptsServiceStore", async () => {
    const db = client.db(`junction_scripts_service_${runId}_${++databases}`);
    const store = await MongoScriptsServiceStore.open(db);
    return { store, cleanup: () => db.dropDatabase().then(() => undefined) };
  });
}
