import { join } from "node:path";
import type { HostLookup } from "@junction/platform/address-policy";
import { loadAllowedPrivateHosts } from "@junction/platform/outbound-address-policy";
import { type Bus, MemoryBus, MeteredBus, TracedBus } from "@junction/bus";
import {
  createGateway,
  type Gateway,
  type GatewayClients,
  loadAuthSocketSettings,
  loadConnectUiSettings,
  loadOverviewSettings,
  OVERVIEW_METRICS,
  OverviewSampler,
  openOverviewStore,
  loadMcpAuthSettings,
  type McpAuthOptions,
  SqliteMcpAuthStore,
  serveGateway,
} from "@junction/gateway";
import {
  type Clock,
  createLogger,
  encryptorFromConfig,
  loadCommonConfig,
  loadPort,
  type Logger,
  MetricsRegistry,
  openDatabase,
  sampleRegistry,
  sqliteCheck,
  systemClock,
  tracesEndpoint,
} from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import { recorderFromEnv } from "@junction/platform/operations/recorder-settings";
import { sandboxStateFile } from "./sandbox-process.ts";
import { bootstrapSecretKey } from "./secret-key-bootstrap.ts";
import { loadProxySettings } from "@junction/upstream-proxy";
import { loadProcessSettings } from "./process-settings.ts";
import { busCheck, InMemoryWiring, serviceCheck } from "@junction/wiring";
import { loadObserveSettings } from "./observe-settings.ts";
import { SERVICE_TABLE } from "./wiring/service-table.ts";

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
 * transport, the in-process bus, and one SQLite file in the data dir.
 */
export async function startEmbedded(options: EmbeddedOptions = {}): Promise<EmbeddedJunction> {
  const env = options.env ?? process.env;
  const common = loadCommonConfig(env);
  const logger = options.logger ?? createLogger();
  const clock = options.clock ?? systemClock;
  const encryptor = encryptorFromConfig(common, { embedded: true });
  const configs = SERVICE_TABLE.map((spec) => spec.config(env));
  const { metricsToken } = loadObserveSettings(env);
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

  const settings = loadProcessSettings(env);
  // Bind the port first: the base URL (webhook URLs, OAuth redirect) depends on it.
  let fetchImpl: (req: Request) => Promise<Response> = async () => new Response("starting", { status: 503 });
  let upgradeImpl: Gateway["upgrade"] = () => false;
  const server = serveGateway(
    { fetch: (req) => fetchImpl(req), upgrade: (req, srv) => upgradeImpl(req, srv) },
    {
      port: options.port ?? loadPort(env, "", 3003),
      hostname: options.hostname ?? settings.host,
    },
  );
  const baseUrl = (common.baseUrl ?? `http://localhost:${server.port}`).replace(/\/+$/, "");

  // spec: Authentication 4: the built-in sandbox upstream offers test credentials for trying Junction
  // with no upstream account; credentials the operator configured win.
  const sandbox = settings.sandboxUpstream
    ? await (await import("@junction/sandbox-upstream")).startSandboxUpstream({
        port: settings.sandboxUpstreamPort,
        now: () => clock.now(),
        stateFile: sandboxStateFile(env),
      })
    : undefined;
  if (sandbox) logger.info("sandbox upstream listening", { url: sandbox.url });

  // Every service in this process, each over an in-memory router (clients reach it on their first call).
  const wiring = new InMemoryWiring({
    env,
    common,
    clock,
    logger,
    services: SERVICE_TABLE.map((spec) => spec.name),
    bus,
    db,
    encryptor,
    baseUrl: () => baseUrl,
    testCredentials: sandbox?.testCredentials,
    ...(options.lookup ? { lookup: options.lookup } : {}),
    metrics,
    operations,
    ...(tracing ? { tracing } : {}),
  });
  for (const [i, spec] of SERVICE_TABLE.entries()) await wiring.build(spec, { config: configs[i] });
  const clients = wiring.clients;
  // The store /ready asks: the one SQLite file, or MongoDB (its module loaded only then).
  const mongo =
    common.store === "mongodb"
      ? (await import("@junction/platform/mongo-check")).mongoCheck(
          "store",
          common.mongodbUrl ?? "",
          common.mongodbDatabase,
        )
      : undefined;
  // The overview's buckets live in the one SQLite file, or MongoDB; one registry holds every service's counters.
  const overview = await openOverviewStore(common, () => db);
  const sampler = new OverviewSampler(
    overview.store,
    [{ name: "embedded", sample: async () => sampleRegistry(metrics, OVERVIEW_METRICS) }],
    clock,
    logger.child({ component: "overview" }),
    loadOverviewSettings(env).sampleMs,
  );
  const gateway = createGateway({
    clients,
    baseUrl,
    overview: overview.store,
    logger: logger.child({ component: "gateway" }),
    clock,
    proxySettings: loadProxySettings(env),
    // One gateway in the process: a result always reaches its socket here, no bus needed.
    authSocketSettings: loadAuthSocketSettings(env),
    metrics,
    metricsToken,
    operations,
    addressOf: server.addressOf,
    connectUi: loadConnectUiSettings(env),
    mcpAuth: {
      // In the one SQLite file: MCP clients' authorizations outlive a restart.
      store: new SqliteMcpAuthStore(db),
      settings: loadMcpAuthSettings(env),
      allowedPrivateHosts: loadAllowedPrivateHosts(env),
      ...(options.lookup ? { lookup: options.lookup } : {}),
      ...(options.mcpClientMetadataFetch ? { fetchImpl: options.mcpClientMetadataFetch } : {}),
    },
    ...(tracing ? { tracing } : {}),
    readiness: [
      mongo ?? sqliteCheck("store", db),
      busCheck(bus),
      ...SERVICE_TABLE.map((spec) => serviceCheck(spec.name, wiring.transport(spec.name))),
    ],
  });
  fetchImpl = gateway.fetch;
  upgradeImpl = gateway.upgrade;

  const generatedSecretKey = await bootstrapSecretKey(clients.connection, settings.secretKey);
  await sampler.start();
  await wiring.start();
  logger.info("junction started", { topology: "embedded", port: server.port, baseUrl, dataDir: common.dataDir });

  return {
    url: server.url,
    port: server.port,
    baseUrl,
    clients,
    bus,
    operations,
    generatedSecretKey,
    databaseFile,
    async stop() {
      await gateway.authSockets.stop();
      await server.stop();
      await sandbox?.stop();
      await sampler.stop();
      await overview.close();
      await wiring.stop();
      await bus.close();
      await wiring.close();
      await mongo?.close();
      db.close();
      await tracing?.shutdown();
    },
  };
}
