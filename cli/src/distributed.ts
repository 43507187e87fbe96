import { join } from "node:path";
import { NatsBus } from "@junction/bus/nats-bus";
import { createGateway, serveGateway } from "@junction/gateway";
import {
  type CommonConfig,
  ConfigError,
  createLogger,
  encryptorFromConfig,
  errorBoundary,
  loadCommonConfig,
  loadPort,
  type Logger,
  openDatabase,
  systemClock,
} from "@junction/platform";
import { h2cTransport, serveH2c } from "@junction/platform/h2c";
import { loadProxySettings } from "@junction/upstream-proxy";
import { loadProcessSettings } from "./process-settings.ts";
import { bootstrapSecretKey, printGeneratedKey } from "./secret-key-bootstrap.ts";
import type { ServiceName } from "./service-names.ts";
import { urlVariable } from "./wiring/addresses.ts";
import { buildService, type Env, lateClients, type ServiceKey } from "@junction/wiring";
import { serviceSpec } from "./wiring/service-table.ts";

export { SERVICES, type ServiceName } from "./service-names.ts";

const GATEWAY_DEFAULT_PORT = 3003;

export interface RunningService {
  name: ServiceName;
  url: string;
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
  const log = logger ?? createLogger();
  const port = servicePort(env, name);
  // Clients of the other processes over h2c, one transport to each, made on its first call.
  const clients = lateClients((other) => h2cTransport(serviceUrl(env, other)));
  if (name === "gateway") {
    const baseUrl = requireBaseUrl(common);
    const gateway = createGateway({
      clients,
      baseUrl,
      logger: log.child({ component: name }),
      proxySettings: loadProxySettings(env),
    });
    // Serve only once the key exists: a healthy gateway must accept the configured key.
    const generated = await bootstrapSecretKey(clients.connection, env.JUNCTION_SECRET_KEY, { waitMs: 60_000 });
    if (generated) printGeneratedKey(generated);
    const server = serveGateway(gateway, { port, hostname: loadProcessSettings(env).host });
    return { name, url: server.url, stop: () => server.stop() };
  }

  const spec = serviceSpec(name);
  const encryptor = spec.needs.encryptor ? encryptorFromConfig(common, { embedded: false }) : undefined;
  const config = spec.config(env);
  const baseUrl = spec.needs.baseUrl ? requireBaseUrl(common) : "";
  const bus = spec.needs.bus ? await NatsBus.connect({ servers: common.natsUrl, name: `junction-${name}` }) : undefined;
  const db =
    spec.needs.database && common.store === "sqlite" ? openDatabase(join(common.dataDir, `${name}.sqlite`)) : undefined;
  const wiring = {
    env,
    common,
    clock: systemClock,
    logger: log,
    embedded: false,
    clients,
    // Without JUNCTION_<NAME>_URL, an optional service is not run (say, connection and webhook get no
    // scripts client: a topology without a scripts process must not retry every notification against nothing).
    runs: (other: ServiceKey) => Boolean(env[urlVariable(other)]),
    baseUrl: () => baseUrl,
  };
  const service = await buildService(spec, config, wiring, { bus, db, encryptor });
  const server = await serveH2c((r) => service.routes(r), {
    port,
    // JUNCTION_HOST, as the gateway: 0.0.0.0 in containers, where the other processes reach it by name.
    host: loadProcessSettings(env).host,
    interceptors: [errorBoundary(log.child({ component: name }))],
  });
  await service.start?.();
  return {
    name,
    url: server.url,
    async stop() {
      await server.close();
      await service.stop?.();
      await bus?.close();
      await service.close?.();
    },
  };
}
