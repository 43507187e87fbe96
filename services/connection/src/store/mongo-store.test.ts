import { afterAll, beforeAll } from "bun:test";
import { existsSync } from "node:fs";
import { randomToken } from "@junction/platform";
import { MongoClient } from "mongodb";
import { MongoConnectionStore } from "./mongo-store.ts";
import { connectionStoreConformance } from "./store.conformance.ts";

// Runs the conformance suite against a real MongoDB: the one at MONGODB_URL, else a single-node
// replica set (so that transactions work) started with testcontainers when a Docker engine is there.

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
      const started = await startReplicaSet();
      url = started.url;
      stop = started.stop;
    },
    { timeout: 180_000 },
  );
  afterAll(() => stop(), { timeout: 60_000 });

  connectionStoreConformance("MongoConnectionStore", async () => {
    const dbName = `junction_connection_test_${randomToken(6).replace(/[^A-Za-z0-9]/g, "x")}`;
    const store = await MongoConnectionStore.connect(url, dbName);
    return {
      store,
      cleanup: async () => {
        await store.close();
        const admin = new MongoClient(url);
        try {
          await admin.db(dbName).dropDatabase();
        } finally {
          await admin.close();
        }
      },
    };
  });
}

/** Starts mongo:7 as a single-node replica set and waits until it is primary. */
async function startReplicaSet(): Promise<{ url: string; stop: () => Promise<void> }> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const container = await new GenericContainer("mongo:7")
    .withExposedPorts(27017)
    .withCommand(["--replSet", "rs0", "--bind_ip_all"])
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
    .start();
  const initiate = [
    "rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: '127.0.0.1:27017' }] });",
    "const deadline = Date.now() + 60000;",
    "while (!db.hello().isWritablePrimary) {",
    "  if (Date.now() > deadline) throw new Error('replica set has no primary after 60s');",
    "  sleep(100);",
    "}",
  ].join(" ");
  const result = await container.exec(["mongosh", "--quiet", "--eval", initiate]);
  if (result.exitCode !== 0) {
    await container.stop();
    throw new Error(`rs.initiate failed: ${result.output}`);
  }
  return {
    url: `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`,
    stop: async () => {
      await container.stop();
    },
  };
}
