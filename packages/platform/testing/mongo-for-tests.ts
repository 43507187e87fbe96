import { afterAll, beforeAll } from "bun:test";
import { existsSync } from "node:fs";
import { MongoClient } from "mongodb";
import { randomToken } from "../src/ids.ts";

/** A MongoDB for a conformance suite, with a fresh database per test. */
export interface TestMongo {
  /** Connection string (valid once the suite's beforeAll ran). */
  url(): string;
  /** A client connected to it, shared by the suite. */
  client(): MongoClient;
  /** A database name no other test uses. */
  freshDatabaseName(prefix: string): string;
  /** Drops a database made for one test. */
  drop(name: string): Promise<void>;
}

/**
 * MongoDB for the store conformance suites: the server at MONGODB_URL, else a mongo:7 single-node
 * replica set (transactions work) started with testcontainers when a Docker engine is reachable. With
 * neither, prints one line saying the suite was skipped and returns null, so that no test is registered.
 * Call it at the top level of a test file; it registers the suite's beforeAll/afterAll.
 */
export function mongoForTests(label: string): TestMongo | null {
  const givenUrl = process.env.MONGODB_URL;
  const dockerReachable = Boolean(process.env.DOCKER_HOST) || existsSync("/var/run/docker.sock");
  if (!givenUrl && !dockerReachable) {
    console.log(`MongoDB conformance skipped (${label}): set MONGODB_URL or provide a Docker engine`);
    return null;
  }
  let url = givenUrl ?? "";
  let client: MongoClient | undefined;
  let stop = async () => {};
  beforeAll(async () => {
    if (!url) {
      const started = await startReplicaSet();
      url = started.url;
      stop = started.stop;
    }
    client = await new MongoClient(url).connect();
  }, 180_000);
  afterAll(async () => {
    await client?.close();
    await stop();
  }, 60_000);
  return {
    url: () => url,
    client: () => {
      if (!client) throw new Error("MongoDB is not connected yet: use it inside a test");
      return client;
    },
    freshDatabaseName: (prefix) => `${prefix}_${randomToken(6).replace(/[^A-Za-z0-9]/g, "x")}`,
    drop: async (name) => {
      await client?.db(name).dropDatabase();
    },
  };
}

/** Starts mongo:7 as a single-node replica set and waits until it is primary. */
async function startReplicaSet(): Promise<{ url: string; stop: () => Promise<void> }> {
  // Imported only here: without Docker, testcontainers is never loaded.
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
