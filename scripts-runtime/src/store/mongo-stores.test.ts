import { afterAll, beforeAll } from "bun:test";
import { existsSync } from "node:fs";
import { randomToken } from "@junction/platform";
import { MongoClient } from "mongodb";
import { MongoScriptRunStore } from "./mongo-script-run-store.ts";
import { MongoScriptStore } from "./mongo-script-store.ts";
import { scriptRunStoreConformance } from "./script-run-store.conformance.ts";
import { scriptStoreConformance } from "./script-store.conformance.ts";

// Runs the conformance suites against a real MongoDB: the one at MONGODB_URL, else a single-node
// replica set started with testcontainers when a Docker engine is there.

const dockerAvailable = Boolean(process.env.DOCKER_HOST) || existsSync("/var/run/docker.sock");
const givenUrl = process.env.MONGODB_URL;

if (!givenUrl && !dockerAvailable) {
  console.log("MongoDB conformance skipped: set MONGODB_URL or provide a Docker engine");
} else {
  let url = givenUrl ?? "";
  let stop = async () => {};

  beforeAll(
    async () => {
      if (givenUrl) return;
      const started = await startMongo();
      url = started.url;
      stop = started.stop;
    },
    { timeout: 180_000 },
  );
  afterAll(() => stop(), { timeout: 60_000 });

  const freshDb = () => `junction_scripts_test_${randomToken(6).replace(/[^A-Za-z0-9]/g, "x")}`;
  const dropping = (dbName: string, close: () => Promise<void>) => async () => {
    await close();
    const admin = new MongoClient(url);
    try {
      await admin.db(dbName).dropDatabase();
    } finally {
      await admin.close();
    }
  };

  scriptRunStoreConformance("MongoScriptRunStore", async (maxLogBytes) => {
    const dbName = freshDb();
    const store = await MongoScriptRunStore.connect(url, dbName, maxLogBytes);
    return { store, cleanup: dropping(dbName, () => store.close()) };
  });

  scriptStoreConformance("MongoScriptStore", async () => {
    const dbName = freshDb();
    const store = await MongoScriptStore.connect(url, dbName);
    return { store, cleanup: dropping(dbName, () => store.close()) };
  });
}

/** Starts mongo:7 (no transactions needed by these stores) and returns its address. */
async function startMongo(): Promise<{ url: string; stop: () => Promise<void> }> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const container = await new GenericContainer("mongo:7")
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
    .start();
  return {
    url: `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`,
    stop: async () => {
      await container.stop();
    },
  };
}
