import type { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@connectrpc/connect";
import { MemoryBus } from "@junction/bus";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import {
  Encryptor,
  loadCommonConfig,
  ManualClock,
  type MetricsRegistry,
  memoryLogger,
  openDatabase,
} from "@junction/platform";
import { connectionSpec } from "@junction/service-specs";
import { DEFAULT_PROXY_SETTINGS } from "@junction/upstream-proxy";
import { InMemoryWiring, partsOf, type ServiceClients } from "@junction/wiring";
import { ScriptRuntime } from "../src/runtime/script-runtime.ts";
import { DEFAULT_SCRIPTS_CONFIG, type ScriptsConfig } from "../src/service/config.ts";
import type { ScriptsStores } from "../src/service/open-stores.ts";
import { scriptsSpec } from "../src/service/scripts-spec.ts";
import type { ScriptsServiceInstance } from "../src/service/service.ts";

/** How far the kit's clocks move together in one step; also the instances' scheduler poll. */
const STEP_MS = 3_600_000;

/** One scripts service instance of a kit, with its own stores (its own handle on the shared file). */
export interface KitInstance {
  scripts: ScriptsServiceInstance;
  /** A client of this instance, over an in-memory transport. */
  client: Client<typeof ScriptsService>;
  stores: ScriptsStores;
  /** This instance's clock (the kit advances every instance's at once). */
  clock: ManualClock;
  /** This instance's bus (its durable queues shared with the kit's other such instances, if asked). */
  bus: MemoryBus;
  /** What this instance counts (its /metrics). */
  metrics: MetricsRegistry;
}

export interface ServiceKit {
  /**
   * Advances every clock of the kit by `ms` in lockstep, `STEP_MS` at a time, as processes see time
   * pass together: instances' timers due at the same time fire in the same turn (the instances'
   * scheduler polls are one step), so their passes really race for the same due times.
   */
  advance(ms: number): Promise<void>;
  logs: string[];
  /** A real connection service (SQLite) over an in-memory transport: the scripts service's peer. */
  connections: Client<typeof ConnectionService>;
  clients: ServiceClients;
  /**
   * Starts another scripts service instance on the kit's SQLite file. With `sharedQueues`, its bus
   * keeps its durable queues in one SQLite file with the other such instances', as processes share
   * NATS: a job one instance took and never settled goes to another once its ack wait has passed.
   */
  instance(config?: Partial<ScriptsConfig>, options?: { sharedQueues?: boolean }): Promise<KitInstance>;
  /** Creates a connection of integration "cal". */
  connect(connectionId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Scripts service instances on one SQLite file, next to a real connection service, each instance on a
 * manual clock of its own, all advanced together: their timers fire in the same turn, so that their
 * scheduler passes really race for the same due times. Scripts that call the proxy are not supported
 * here (no proxy service); the end-to-end tests cover those.
 */
export async function startServiceKit(runtime: () => Promise<ScriptRuntime>): Promise<ServiceKit> {
  const dir = mkdtempSync(join(tmpdir(), "junction-scripts-service-"));
  const clock = new ManualClock();
  const logger = memoryLogger();
  const common = loadCommonConfig({ JUNCTION_DATA_DIR: dir });
  const connectionDb = openDatabase(join(dir, "connection.sqlite"));
  const peers = new InMemoryWiring({
    common,
    clock,
    logger,
    services: ["connection"],
    bus: new MemoryBus(undefined, { clock }),
    db: connectionDb,
    encryptor: Encryptor.fromBase64(randomBytes(32).toString("base64")),
    baseUrl: () => "https://junction.example.test",
  });
  await peers.build(connectionSpec);
  // The other services are not run: their clients answer Unimplemented.
  const clients = peers.clients;
  const connections = clients.connection;
  await connections.createIntegration({
    uniqueKey: "cal",
    provider: "google-calendar",
    clientId: "c",
    clientSecret: "s",
  });
  const started: { instance: KitInstance; wiring: InMemoryWiring; db: Database; busDb?: Database }[] = [];

  return {
    async advance(ms) {
      const clocks = [clock, ...started.map((s) => s.instance.clock)];
      for (let left = ms; left > 0; left -= STEP_MS) {
        await Promise.all(clocks.map((c) => c.advance(Math.min(STEP_MS, left))));
      }
    },
    logs: logger.lines,
    connections,
    clients,
    async instance(config = {}, options = {}) {
      const db = openDatabase(join(dir, "scripts.sqlite"));
      const own = new ManualClock(clock.now());
      const busDb = options.sharedQueues ? openDatabase(join(dir, "queues.sqlite")) : undefined;
      const bus = new MemoryBus(busDb, { clock: own });
      const wiring = new InMemoryWiring({
        common,
        clock: own,
        logger: logger.child({ instance: started.length }),
        services: ["scripts"],
        bus,
        db,
        peers: { connection: peers.transport("connection") },
      });
      const built = await wiring.build(scriptsSpec, {
        config: {
          scripts: { ...DEFAULT_SCRIPTS_CONFIG, schedulerPollMs: STEP_MS, ...config },
          proxySettings: DEFAULT_PROXY_SETTINGS,
        },
        extras: { runtime },
      });
      await wiring.start();
      const { scripts, stores } = partsOf(built);
      const client = wiring.clients.scripts;
      const instance = { scripts, client, stores, clock: own, bus, metrics: wiring.metrics };
      started.push({ instance, wiring, db, ...(busDb ? { busDb } : {}) });
      return instance;
    },
    async connect(connectionId) {
      await connections.createConnection({ providerConfigKey: "cal", connectionId });
    },
    async close() {
      for (const { instance, wiring, db, busDb } of started.reverse()) {
        await wiring.stop();
        await instance.bus.close();
        busDb?.close();
        await wiring.close();
        db.close();
      }
      await peers.close();
      connectionDb.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * For a test file: one sandbox runtime for the file (`poolSize` processes), and `start()` giving a
 * fresh kit on it, closed after each test.
 */
export function useServiceKits(poolSize = 1): { start: () => Promise<ServiceKit> } {
  let runtime: ScriptRuntime;
  let kit: ServiceKit | undefined;
  beforeAll(async () => {
    runtime = await ScriptRuntime.start({ poolSize });
  });
  afterAll(() => runtime.close());
  afterEach(async () => {
    await kit?.close();
    kit = undefined;
  });
  return {
    start: async () => {
      kit = await startServiceKit(async () => runtime);
      return kit;
    },
  };
}
