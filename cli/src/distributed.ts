import type { Interceptor } from "@connectrpc/connect";
import { join } from "node:path";
import { type Bus, MeteredBus, TracedBus } from "@junction/bus";
import { busOperationSink } from "@junction/logs-service";
import { recorderFromEnv } from "@junction/platform/operations/recorder-settings";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import { NatsBus } from "@junction/bus/nats-bus";
import { GATEWAY_SQLITE_FILE, mcpAuthStoreFor } from "@junction/gateway";
import type { Database } from "bun:sqlite";
import {
  type CommonConfig,
  ConfigError,
  createLogger,
  encryptorFromConfig,
  errorBoundary,
  jsonDepthGuard,
  loadCommonConfig,
  loadPort,
  type Logger,
  MetricsRegistry,
  openDatabase,
  type ReadinessCheck,
  systemClock,
  type Tracing,
  tracesEndpoint,
} from "@junction/platform";
import { h2cTransport, serveH2c } from "@junction/platform/h2c";
import { loadProcessSettings } from "./process-settings.ts";
import { printGeneratedKey } from "./secret-key-bootstrap.ts";
import type { ServiceName } from "./service-names.ts";
import { urlVariable } from "./wiring/addresses.ts";
import {
  busCheck,
  buildService,
  type Env,
  lateClients,
  type ProcessWiring,
  type ServiceClients,
  SERVICE_KEYS,
  type ServiceKey,
  serviceCheck,
} from "@junction/wiring";
import { adminPort, serveAdmin } from "./admin-server.ts";
import { distributedOverview, serveMetricsSamples } from "./metrics-samples.ts";
import { loadObserveSettings } from "./observe-settings.ts";
import { loadGatewaySettings } from "./wiring/gateway-settings.ts";
import { serviceSpec } from "./wiring/service-table.ts";
import { startGateway } from "./wiring/start-gateway.ts";
import { storeReadiness } from "./wiring/store-readiness.ts";

export { SERVICES, type ServiceName } from "./service-names.ts";

export interface RunningService {
  name: ServiceName;
  url: string;
  /** A service process's admin listener (/metrics, /ready, /health); the gateway serves them itself. */
  adminUrl?: string;
  stop(): Promise<void>;
}

/** URL of another service process: JUNCTION_<NAME>_URL, or localhost on its default port. */
function serviceUrl(env: Env, name: ServiceKey): string {
  return env[urlVariable(name)] ?? `http://127.0.0.1:${serviceSpec(name).defaultPort}`;
}

function requireBaseUrl(cfg: CommonConfig): string {
  if (!cfg.baseUrl) throw new ConfigError("JUNCTION_BASE_URL is required in the distributed topology");
  return cfg.baseUrl.replace(/\/+$/, "");
}

/**
 * Runs one service of the distributed topology in this process: Connect over h2c, NATS JetStream for
 * events and work, a SQLite file or MongoDB for storage.
 */
export async function serveService(
  name: ServiceName,
  env: Env = process.env,
  logger?: Logger,
): Promise<RunningService> {
  const log = logger ?? createLogger();
  return name === "gateway" ? serveGatewayProcess(env, log) : serveTableService(name, env, log);
}

/** What every process of the topology has: its metrics, operations recorder, tracing and clients of the others. */
interface DistributedProcess {
  metrics: MetricsRegistry;
  operations: OperationRecorder;
  tracing: Tracing | undefined;
  /** Clients of the other processes over h2c, one transport to each, made on its first call. */
  clients: ServiceClients;
  /** /ready asks each service this process calls over a transport of its own (a probe never waits on a call). */
  peerCheck(other: ServiceKey): ReadinessCheck;
}

async function distributedProcess(name: ServiceName, env: Env): Promise<DistributedProcess> {
  const metrics = new MetricsRegistry();
  // Each process records its own operations; the logs process keeps them, the others send them on the bus
  // (nothing is recorded in a topology without a logs process: no queue would ever be drained).
  const operations = recorderFromEnv(env, systemClock, metrics, name === "logs" || Boolean(env[urlVariable("logs")]));
  // Loaded only when the OTEL_* variables turn tracing on: off, a process never loads the SDK.
  const tracing = tracesEndpoint(env)
    ? (await import("@junction/platform/tracing")).startTracing(env, name)
    : undefined;
  const clientInterceptors = tracing ? [tracing.connectInterceptor()] : [];
  return {
    metrics,
    operations,
    tracing,
    clients: lateClients((other) => h2cTransport(serviceUrl(env, other), clientInterceptors)),
    peerCheck: (other) => serviceCheck(other, h2cTransport(serviceUrl(env, other))),
  };
}

/** The gateway's process: the services over h2c, core NATS for the auth sockets, the overview in its data dir. */
async function serveGatewayProcess(env: Env, log: Logger): Promise<RunningService> {
  const common = loadCommonConfig(env);
  const settings = loadGatewaySettings(env);
  const baseUrl = requireBaseUrl(common);
  const p = await distributedProcess("gateway", env);
  // The scripts and logs services are the gateway's optional peers: a topology without them is ready
  // without them (without logs, /logs/operations answers service_unavailable and nothing is kept).
  const peers = SERVICE_KEYS.filter(
    (other) => (other !== "scripts" && other !== "logs") || Boolean(env[urlVariable(other)]),
  );
  const gateway = await startGateway({
    settings,
    logger: log,
    metrics: p.metrics,
    operations: p.operations,
    ...(p.tracing ? { tracing: p.tracing } : {}),
    bindFirst: false,
    baseUrl,
    keyWaitMs: 60_000,
    onGeneratedKey: printGeneratedKey,
    async peers() {
      // Core NATS only: an authorization's result reaches the gateway process holding the SDK's socket.
      const bus = await NatsBus.connect({ servers: common.natsUrl, name: "junction-gateway" });
      p.operations.attach(busOperationSink(bus));
      // The gateway's one SQLite file (opened on first use: not with MongoDB) holds the overview's buckets
      // and the MCP URLs, clients and tokens, which outlive a restart and are shared by the gateway processes.
      let gatewayDb: Database | undefined;
      const db = () =>
        (gatewayDb ??= openDatabase(join(common.dataDir, GATEWAY_SQLITE_FILE), { cacheMb: common.sqliteCacheMb }));
      const mcpStore = await mcpAuthStoreFor(common, db);
      const overview = await distributedOverview({
        sampleMs: settings.overviewSampleMs,
        common,
        db,
        metrics: p.metrics,
        peers,
        transport: (peer) => h2cTransport(serviceUrl(env, peer as ServiceKey)),
        logger: log.child({ component: "overview" }),
      });
      return {
        clients: p.clients,
        readiness: [...peers.map(p.peerCheck), busCheck(bus), mcpStore.readiness],
        bus,
        overview,
        mcpAuth: { store: mcpStore.store },
        async stop() {
          await overview.close();
          await p.operations.flushed();
          await bus.close();
          await mcpStore.close();
          gatewayDb?.close();
        },
      };
    },
  });
  return { name: "gateway", url: gateway.server.url, stop: () => gateway.stop() };
}

/** A service of the table in its own process: served over h2c, its admin listener beside it. */
async function serveTableService(name: ServiceKey, env: Env, log: Logger): Promise<RunningService> {
  const common = loadCommonConfig(env);
  const host = loadProcessSettings(env).host;
  const port = loadPort(env, `JUNCTION_${name.toUpperCase()}_`, serviceSpec(name).defaultPort);
  const { metricsToken } = loadObserveSettings(env);
  const p = await distributedProcess(name, env);
  const spec = serviceSpec(name);
  const encryptor = spec.needs.encryptor ? encryptorFromConfig(common, { embedded: false }) : undefined;
  const config = spec.config(env);
  const baseUrl = spec.needs.baseUrl ? requireBaseUrl(common) : "";
  const bus = spec.needs.bus ? await serviceBus(name, common, p) : undefined;
  const db =
    spec.needs.database && common.store === "sqlite"
      ? openDatabase(join(common.dataDir, `${name}.sqlite`), { cacheMb: common.sqliteCacheMb })
      : undefined;
  // Without JUNCTION_<NAME>_URL, an optional service is not run (say, connection and webhook get no
  // scripts client: a topology without a scripts process must not retry every notification against nothing).
  const runs = (other: ServiceKey) => Boolean(env[urlVariable(other)]);
  if (bus && name !== "logs") p.operations.attach(busOperationSink(bus));
  const wiring = processWiring({ env, common, log, p, runs, baseUrl });
  const service = await buildService(spec, config, wiring, { bus, db, encryptor });
  const server = await serveH2c(
    (r) => {
      service.routes(r);
      serveMetricsSamples(r, p.metrics);
    },
    { port, host, interceptors: serverInterceptors(name, log, p) },
  );
  await service.start?.();
  const store = spec.needs.database ? await storeReadiness(common, db) : undefined;
  const readiness: ReadinessCheck[] = [
    ...(store?.checks ?? []),
    ...(bus ? [busCheck(bus)] : []),
    ...spec.needs.clients.map(p.peerCheck),
    ...(spec.needs.optionalClients ?? []).filter(runs).map(p.peerCheck),
  ];
  const admin = serveAdmin({
    port: adminPort(env, name, port),
    logger: log.child({ component: name }),
    hostname: host,
    metrics: p.metrics,
    metricsToken,
    readiness,
  });
  return {
    name,
    url: server.url,
    adminUrl: admin?.url,
    async stop() {
      await admin?.stop();
      await server.close();
      await service.stop?.();
      await p.operations.flushed();
      await bus?.close();
      await service.close?.();
      await store?.close();
      await p.tracing?.shutdown();
    },
  };
}

/** A service's NATS connection, metered, and traced when tracing is on. */
async function serviceBus(name: ServiceKey, common: CommonConfig, p: DistributedProcess): Promise<Bus> {
  const nats = new MeteredBus(await NatsBus.connect({ servers: common.natsUrl, name: `junction-${name}` }), p.metrics);
  return p.tracing ? new TracedBus(nats, p.tracing) : nats;
}

/** What a service of the table is built with in its own process. */
function processWiring(w: {
  env: Env;
  common: CommonConfig;
  log: Logger;
  p: DistributedProcess;
  runs(other: ServiceKey): boolean;
  baseUrl: string;
}): ProcessWiring {
  const { p } = w;
  return {
    env: w.env,
    common: w.common,
    clock: systemClock,
    logger: w.log,
    embedded: false,
    metrics: p.metrics,
    ...(p.tracing ? { tracing: p.tracing } : {}),
    operations: p.operations,
    clients: p.clients,
    runs: w.runs,
    baseUrl: () => w.baseUrl,
  };
}

/** A service's Connect interceptors: its server span when traced, the error boundary, the JSON depth guard. */
function serverInterceptors(name: ServiceKey, log: Logger, p: DistributedProcess): Interceptor[] {
  return [
    ...(p.tracing ? [p.tracing.connectServerInterceptor()] : []),
    errorBoundary(log.child({ component: name }), p.metrics),
    jsonDepthGuard(),
  ];
}
