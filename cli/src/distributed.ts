import { join } from "node:path";
import { MeteredBus, TracedBus } from "@junction/bus";
import { busOperationSink } from "@junction/logs-service";
import { recorderFromEnv } from "@junction/platform/operations/recorder-settings";
import { NatsBus } from "@junction/bus/nats-bus";
import {
  createGateway,
  loadAuthSocketSettings,
  loadConnectUiSettings,
  loadMcpAuthSettings,
  type RunningGateway,
  serveGateway,
} from "@junction/gateway";
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
  sqliteCheck,
  systemClock,
  tracesEndpoint,
} from "@junction/platform";
import { h2cTransport, serveH2c } from "@junction/platform/h2c";
import { loadAllowedPrivateHosts } from "@junction/platform/outbound-address-policy";
import { loadProxySettings } from "@junction/upstream-proxy";
import { loadProcessSettings } from "./process-settings.ts";
import { bootstrapSecretKey, printGeneratedKey } from "./secret-key-bootstrap.ts";
import { refuseTakenPort } from "./taken-port.ts";
import type { ServiceName } from "./service-names.ts";
import { urlVariable } from "./wiring/addresses.ts";
import {
  busCheck,
  buildService,
  type Env,
  lateClients,
  SERVICE_KEYS,
  type ServiceKey,
  serviceCheck,
} from "@junction/wiring";
import { adminPort, serveAdmin } from "./admin-server.ts";
import { distributedOverview, serveMetricsSamples } from "./metrics-samples.ts";
import { loadObserveSettings } from "./observe-settings.ts";
import { serviceSpec } from "./wiring/service-table.ts";

export { SERVICES, type ServiceName } from "./service-names.ts";

const GATEWAY_DEFAULT_PORT = 3003;

export interface RunningService {
  name: ServiceName;
  url: string;
  /** A service process's admin listener (/metrics, /ready, /health); the gateway serves them itself. */
  adminUrl?: string;
  stop(): Promise<void>;
}

function servicePort(env: Env, name: ServiceName): number {
  return loadPort(
    env,
    name === "gateway" ? "" : `JUNCTION_${name.toUpperCase()}_`,
    name === "gateway" ? GATEWAY_DEFAULT_PORT : serviceSpec(name).defaultPort,
  );
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
  const common = loadCommonConfig(env);
  const settings = loadProcessSettings(env);
  const log = logger ?? createLogger();
  const port = servicePort(env, name);
  const { metricsToken } = loadObserveSettings(env);
  const metrics = new MetricsRegistry();
  // Each process records its own operations; the logs process keeps them, the others send them on the bus
  // (nothing is recorded in a topology without a logs process: no queue would ever be drained).
  const operations = recorderFromEnv(env, systemClock, metrics, name === "logs" || Boolean(env[urlVariable("logs")]));
  // Loaded only when the OTEL_* variables turn tracing on: off, a process never loads the SDK.
  const tracing = tracesEndpoint(env)
    ? (await import("@junction/platform/tracing")).startTracing(env, name)
    : undefined;
  const clientInterceptors = tracing ? [tracing.connectInterceptor()] : [];
  // Clients of the other processes over h2c, one transport to each, made on its first call.
  const clients = lateClients((other) => h2cTransport(serviceUrl(env, other), clientInterceptors));
  // /ready asks each service this process calls over a transport of its own (a probe never waits on a call).
  const peerCheck = (other: ServiceKey) => serviceCheck(other, h2cTransport(serviceUrl(env, other)));
  if (name === "gateway") {
    const baseUrl = requireBaseUrl(common);
    // The scripts and logs services are the gateway's optional peers: a topology without them is ready
    // without them (without logs, /logs/operations answers service_unavailable and nothing is kept).
    const peers = SERVICE_KEYS.filter(
      (other) => (other !== "scripts" && other !== "logs") || Boolean(env[urlVariable(other)]),
    );
    // Core NATS only: an authorization's result reaches the gateway process holding the SDK's socket.
    const gatewayBus = await NatsBus.connect({ servers: common.natsUrl, name: "junction-gateway" });
    operations.attach(busOperationSink(gatewayBus));
    let served: RunningGateway | undefined;
    const overview = await distributedOverview({
      env,
      common,
      metrics,
      peers,
      transport: (peer) => h2cTransport(serviceUrl(env, peer as ServiceKey)),
      logger: log.child({ component: "overview" }),
    });
    const gateway = createGateway({
      clients,
      baseUrl,
      overview: overview.store,
      addressOf: (req) => served?.addressOf(req),
      logger: log.child({ component: name }),
      proxySettings: loadProxySettings(env),
      metrics,
      metricsToken,
      connectUi: loadConnectUiSettings(env),
      mcpAuth: { settings: loadMcpAuthSettings(env), allowedPrivateHosts: loadAllowedPrivateHosts(env) },
      readiness: [...peers.map(peerCheck), busCheck(gatewayBus)],
      ...(tracing ? { tracing } : {}),
      bus: gatewayBus,
      operations,
      authSocketSettings: loadAuthSocketSettings(env),
    });
    await gateway.authSockets.start();
    // Serve only once the key exists: a healthy gateway must accept the configured key. A taken port fails
    // the start first, before a key is generated that no running Junction would accept.
    refuseTakenPort(port, settings.host);
    const generated = await bootstrapSecretKey(clients.connection, settings.secretKey, { waitMs: 60_000 });
    if (generated) printGeneratedKey(generated);
    const server = serveGateway(gateway, { port, hostname: settings.host });
    served = server;
    await overview.sampler.start();
    return {
      name,
      url: server.url,
      async stop() {
        await gateway.authSockets.stop();
        await server.stop();
        await overview.close();
        await operations.flushed();
        await gatewayBus.close();
        await tracing?.shutdown();
      },
    };
  }

  const spec = serviceSpec(name);
  const encryptor = spec.needs.encryptor ? encryptorFromConfig(common, { embedded: false }) : undefined;
  const config = spec.config(env);
  const baseUrl = spec.needs.baseUrl ? requireBaseUrl(common) : "";
  const nats = spec.needs.bus
    ? new MeteredBus(await NatsBus.connect({ servers: common.natsUrl, name: `junction-${name}` }), metrics)
    : undefined;
  const bus = nats && tracing ? new TracedBus(nats, tracing) : nats;
  const db =
    spec.needs.database && common.store === "sqlite"
      ? openDatabase(join(common.dataDir, `${name}.sqlite`), { cacheMb: common.sqliteCacheMb })
      : undefined;
  const wiring = {
    env,
    common,
    clock: systemClock,
    logger: log,
    embedded: false,
    metrics,
    ...(tracing ? { tracing } : {}),
    operations,
    clients,
    // Without JUNCTION_<NAME>_URL, an optional service is not run (say, connection and webhook get no
    // scripts client: a topology without a scripts process must not retry every notification against nothing).
    runs: (other: ServiceKey) => Boolean(env[urlVariable(other)]),
    baseUrl: () => baseUrl,
  };
  if (bus && name !== "logs") operations.attach(busOperationSink(bus));
  const service = await buildService(spec, config, wiring, { bus, db, encryptor });
  const server = await serveH2c(
    (r) => {
      service.routes(r);
      serveMetricsSamples(r, metrics);
    },
    {
      port,
      host: settings.host,
      interceptors: [
        ...(tracing ? [tracing.connectServerInterceptor()] : []),
        errorBoundary(log.child({ component: name }), metrics),
        jsonDepthGuard(),
      ],
    },
  );
  await service.start?.();
  // The store /ready asks: its SQLite file, or MongoDB (its module loaded only then).
  const mongo =
    spec.needs.database && common.store === "mongodb"
      ? (await import("@junction/platform/mongo-check")).mongoCheck(
          "store",
          common.mongodbUrl ?? "",
          common.mongodbDatabase,
        )
      : undefined;
  const readiness: ReadinessCheck[] = [
    ...(db ? [sqliteCheck("store", db)] : []),
    ...(mongo ? [mongo] : []),
    ...(bus ? [busCheck(bus)] : []),
    ...spec.needs.clients.map(peerCheck),
    ...(spec.needs.optionalClients ?? []).filter((other) => wiring.runs(other)).map(peerCheck),
  ];
  const admin = serveAdmin({
    port: adminPort(env, name, port),
    logger: log.child({ component: name }),
    hostname: loadProcessSettings(env).host,
    metrics,
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
      await operations.flushed();
      await bus?.close();
      await service.close?.();
      await mongo?.close();
      await tracing?.shutdown();
    },
  };
}
