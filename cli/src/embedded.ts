import type { Database } from "bun:sqlite";
import { join } from "node:path";
import type { HostLookup } from "@junction/platform/address-policy";
import { type Bus, MemoryBus, MeteredBus, TracedBus } from "@junction/bus";
import {
  type GatewayClients,
  type McpAuthOptions,
  OVERVIEW_METRICS,
  OverviewSampler,
  SqliteMcpAuthStore,
  openOverviewStore,
  type OverviewStore,
} from "@junction/gateway";
import {
  type Clock,
  type CommonConfig,
  createLogger,
  type Encryptor,
  encryptorFromConfig,
  loadCommonConfig,
  type Logger,
  MetricsRegistry,
  openDatabase,
  sampleRegistry,
  systemClock,
  type Tracing,
  tracesEndpoint,
} from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import { recorderFromEnv } from "@junction/platform/operations/recorder-settings";
import { busCheck, type Env, InMemoryWiring, serviceCheck } from "@junction/wiring";
import { sandboxStateFile } from "./sandbox-process.ts";
import { type GatewaySettings, loadGatewaySettings } from "./wiring/gateway-settings.ts";
import { SERVICE_TABLE } from "./wiring/service-table.ts";
import { storeReadiness } from "./wiring/store-readiness.ts";
import { type GatewayPeers, startGateway } from "./wiring/start-gateway.ts";

export interface EmbeddedOptions {
  env?: Record<string, string | undefined>;
  /** Overrides PORT (0 picks a free port). */
  port?: number;
  hostname?: string;
  clock?: Clock;
  logger?: Logger;
  /** DNS for the outbound address policy (tests give a resolver of their own). */
  lookup?: HostLookup;
  /** The fetch under the policy that reads MCP clients' metadata documents (tests trust a local CA). */
  mcpClientMetadataFetch?: McpAuthOptions["fetchImpl"];
}

export interface EmbeddedJunction {
  url: string;
  port: number;
  baseUrl: string;
  clients: GatewayClients;
  /** The process's operations recorder (tests wait for it to be flushed). */
  operations: OperationRecorder;
  /** The in-process bus (tests publish events on it). */
  bus: Bus;
  /** The secret key generated on first start, if one was. */
  generatedSecretKey: string | undefined;
  /** The SQLite file that keeps everything, the secret keys' hashes included. */
  databaseFile: string;
  stop(): Promise<void>;
}

/**
 * The embedded default: every service of the table in this process, Connect over an in-memory router
 * transport, the in-process bus, and one SQLite file in the data dir (the operations log keeps its own, `logs.sqlite`,
 * written on a thread of its own).
 */
export async function startEmbedded(options: EmbeddedOptions = {}): Promise<EmbeddedJunction> {
  const env = options.env ?? process.env;
  const common = loadCommonConfig(env);
  const settings = loadGatewaySettings(env);
  const encryptor = encryptorFromConfig(common, { embedded: true });
  // Every setting is read before anything starts: a bad one stops the process with nothing bound or written.
  const configs = SERVICE_TABLE.map((spec) => spec.config(env));
  const logger = options.logger ?? createLogger();
  const clock = options.clock ?? systemClock;
  // One registry for the whole process: the gateway's and every service's metrics on one /metrics.
  const metrics = new MetricsRegistry();
  // The process's operations log recorder: the logs service, built below, takes its batches into the store.
  const operations = recorderFromEnv(env, clock, metrics);
  const databaseFile = join(common.dataDir, "junction.sqlite");
  const db = openDatabase(databaseFile, { cacheMb: common.sqliteCacheMb });
  // Loaded only when the OTEL_* variables turn tracing on: off, the process never loads the SDK.
  const tracing = tracesEndpoint(env)
    ? (await import("@junction/platform/tracing")).startTracing(env, "embedded")
    : undefined;
  const metered = new MeteredBus(new MemoryBus(db, { clock }), metrics);
  const bus: Bus = tracing ? new TracedBus(metered, tracing) : metered;
  const parts = { env, common, settings, configs, encryptor, clock, logger, metrics, operations, db, bus, tracing };
  const gateway = await startGateway({
    settings,
    logger,
    clock,
    metrics,
    operations,
    ...(tracing ? { tracing } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.hostname !== undefined ? { hostname: options.hostname } : {}),
    bindFirst: true,
    baseUrl: common.baseUrl,
    peers: (baseUrl) => embeddedPeers({ ...parts, options }, baseUrl),
  });
  const { port, url } = gateway.server;
  logger.info("junction started", { topology: "embedded", port, baseUrl: gateway.baseUrl, dataDir: common.dataDir });
  return {
    url,
    port,
    baseUrl: gateway.baseUrl,
    clients: gateway.clients,
    bus,
    operations,
    generatedSecretKey: gateway.generatedSecretKey,
    databaseFile,
    stop: () => gateway.stop(),
  };
}

/** What the embedded process made before the gateway's peers: its one database, bus, metrics and recorder. */
interface EmbeddedProcess {
  env: Env;
  common: CommonConfig;
  settings: GatewaySettings;
  /** The services' settings, in the table's order. */
  configs: unknown[];
  encryptor: Encryptor;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
  operations: OperationRecorder;
  db: Database;
  bus: Bus;
  tracing: Tracing | undefined;
  options: EmbeddedOptions;
}

/** Every service of the table in this process, each over an in-memory router, and the sandbox upstream. */
async function embeddedPeers(p: EmbeddedProcess, baseUrl: string): Promise<GatewayPeers> {
  const sandbox = await startSandbox(p);
  const { lookup, mcpClientMetadataFetch } = p.options;
  const wiring = new InMemoryWiring({
    env: p.env,
    common: p.common,
    clock: p.clock,
    logger: p.logger,
    services: SERVICE_TABLE.map((spec) => spec.name),
    bus: p.bus,
    db: p.db,
    encryptor: p.encryptor,
    baseUrl: () => baseUrl,
    testCredentials: sandbox?.testCredentials,
    ...(lookup ? { lookup } : {}),
    metrics: p.metrics,
    operations: p.operations,
    ...(p.tracing ? { tracing: p.tracing } : {}),
  });
  for (const [i, spec] of SERVICE_TABLE.entries()) await wiring.build(spec, { config: p.configs[i] });
  const store = await storeReadiness(p.common, p.db);
  const { overview, sampler, close: closeOverview } = await embeddedOverview(p);
  return {
    clients: wiring.clients,
    readiness: [
      ...store.checks,
      busCheck(p.bus),
      ...SERVICE_TABLE.map((spec) => serviceCheck(spec.name, wiring.transport(spec.name))),
    ],
    overview: { store: overview, sampler },
    // In the one SQLite file: MCP clients' authorizations outlive a restart; one gateway in the process, so
    // an authorization's result always reaches its socket here, no bus needed.
    mcpAuth: {
      store: new SqliteMcpAuthStore(p.db),
      ...(lookup ? { lookup } : {}),
      ...(mcpClientMetadataFetch ? { fetchImpl: mcpClientMetadataFetch } : {}),
    },
    start: () => wiring.start(),
    async stop() {
      await sandbox?.stop();
      await sampler.stop();
      await closeOverview();
      await wiring.stop();
      await p.bus.close();
      await wiring.close();
      await store.close();
      p.db.close();
    },
  };
}

/**
 * spec: Authentication 4: the built-in sandbox upstream, when turned on, offers test credentials for trying
 * Junction with no upstream account; credentials the operator configured win.
 */
async function startSandbox(p: EmbeddedProcess) {
  if (!p.settings.process.sandboxUpstream) return undefined;
  const { startSandboxUpstream } = await import("@junction/sandbox-upstream");
  const sandbox = await startSandboxUpstream({
    port: p.settings.process.sandboxUpstreamPort,
    now: () => p.clock.now(),
    stateFile: sandboxStateFile(p.env),
  });
  p.logger.info("sandbox upstream listening", { url: sandbox.url });
  return sandbox;
}

/** The overview's buckets in the one SQLite file, or MongoDB; one registry holds every service's counters. */
async function embeddedOverview(
  p: EmbeddedProcess,
): Promise<{ overview: OverviewStore; sampler: OverviewSampler; close(): Promise<void> }> {
  const opened = await openOverviewStore(p.common, () => p.db);
  const overview = opened.store;
  const sampler = new OverviewSampler(
    overview,
    [{ name: "embedded", sample: async () => sampleRegistry(p.metrics, OVERVIEW_METRICS) }],
    p.clock,
    p.logger.child({ component: "overview" }),
    p.settings.overviewSampleMs,
  );
  return { overview, sampler, close: () => opened.close() };
}
