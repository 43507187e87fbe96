import { join } from "node:path";
import { createClient, type ConnectRouter } from "@connectrpc/connect";
import { NatsBus } from "@junction/bus/nats-bus";
import { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import {
  createChannelService,
  loadChannelConfig,
  observeChannels,
  openChannelStore,
  startExpirySweeps,
} from "@junction/channel-service";
import {
  createConnectionService,
  loadConnectionSettings,
  loadOAuthSettings,
  openConnectionStore,
  ProviderCatalog,
} from "@junction/connection-service";
import { createGateway, createGatewayClients, serveGateway } from "@junction/gateway";
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
import { createProxyService, loadProxyConfig } from "@junction/proxy-service";
import {
  createWebhookRuntime,
  loadAllowPrivateEndpoints,
  loadDeliveryConfig,
  openWebhookStore,
} from "@junction/webhook-service";
import {
  createScriptsService,
  loadScriptsConfig,
  openScriptsStores,
  scriptsNotificationSink,
} from "@junction/scripts-runtime";
import { bootstrapSecretKey, printGeneratedKey } from "./secret-key-bootstrap.ts";
import type { ServiceName } from "./service-names.ts";

export { SERVICES, type ServiceName } from "./service-names.ts";

const DEFAULT_PORTS: Record<ServiceName, number> = {
  gateway: 3003,
  connection: 4101,
  proxy: 4102,
  channel: 4103,
  webhook: 4104,
  scripts: 4105,
};

export interface RunningService {
  name: ServiceName;
  url: string;
  stop(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/** How long a connection's deletion waits for its channels to be stopped upstream. */
const CHANNEL_CLEANUP_TIMEOUT_MS = 30_000;

function servicePort(env: Env, name: ServiceName): number {
  return loadPort(env, name === "gateway" ? "" : `JUNCTION_${name.toUpperCase()}_`, DEFAULT_PORTS[name]);
}

/** URL of another service process: JUNCTION_<NAME>_URL, or localhost on its default port. */
function serviceUrl(env: Env, name: Exclude<ServiceName, "gateway">): string {
  return env[`JUNCTION_${name.toUpperCase()}_URL`] ?? `http://127.0.0.1:${DEFAULT_PORTS[name]}`;
}

/**
 * The scripts service's client for the connection and webhook processes, when JUNCTION_SCRIPTS_URL
 * says where it runs: without it they run no lifecycle scripts and route no notification to syncs
 * (a topology without a scripts process must not retry every notification against nothing).
 */
function scriptsClient(env: Env) {
  return env.JUNCTION_SCRIPTS_URL ? createClient(ScriptsService, h2cTransport(env.JUNCTION_SCRIPTS_URL)) : undefined;
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
  const log = (logger ?? createLogger()).child({ component: name });
  const clock = systemClock;
  const interceptors = [errorBoundary(log)];
  const port = servicePort(env, name);
  const connections = () => createClient(ConnectionService, h2cTransport(serviceUrl(env, "connection")));
  const environment = async () => (await connections().getEnvironment({})).environment?.id ?? "";
  const sqlite = (file: string) => (common.store === "sqlite" ? openDatabase(join(common.dataDir, file)) : undefined);

  switch (name) {
    case "connection": {
      const encryptor = encryptorFromConfig(common, { embedded: false });
      const baseUrl = requireBaseUrl(common);
      const bus = await NatsBus.connect({ servers: common.natsUrl, name: "junction-connection" });
      const store = await openConnectionStore(common, sqlite("connection.sqlite"));
      const channelClient = createClient(ChannelService, h2cTransport(serviceUrl(env, "channel")));
      const impl = createConnectionService({
        store,
        encryptor,
        clock,
        logger: log,
        bus,
        providers: new ProviderCatalog(),
        baseUrl,
        oauth: loadOAuthSettings(env),
        settings: loadConnectionSettings(env),
        // Before a connection goes, the channel service stops the channels still active for it.
        stopChannels: async (c) => {
          await channelClient.stopChannels(c, { timeoutMs: CHANNEL_CLEANUP_TIMEOUT_MS });
        },
        scripts: scriptsClient(env),
      });
      const server = await serveH2c((r: ConnectRouter) => r.service(ConnectionService, impl), { port, interceptors });
      return running(name, server.url, async () => {
        await server.close();
        await bus.close();
        await store.close();
      });
    }
    case "proxy": {
      const config = loadProxyConfig(env);
      const bus = await NatsBus.connect({ servers: common.natsUrl, name: "junction-proxy" });
      const impl = createProxyService({ connections: connections(), bus, clock, logger: log, config });
      const server = await serveH2c((r: ConnectRouter) => r.service(ProxyService, impl), { port, interceptors });
      return running(name, server.url, async () => {
        await server.close();
        await bus.close();
      });
    }
    case "channel": {
      const bus = await NatsBus.connect({ servers: common.natsUrl, name: "junction-channel" });
      const store = await openChannelStore(common, sqlite("channel.sqlite"));
      const config = loadChannelConfig(env);
      const observer = await observeChannels(bus, store, clock, log);
      const impl = createChannelService({
        store,
        clock,
        logger: log,
        environment,
        proxy: createClient(ProxyService, h2cTransport(serviceUrl(env, "proxy"))),
        connections: connections(),
        stopTimeoutMs: config.stopTimeoutMs,
      });
      const server = await serveH2c((r: ConnectRouter) => r.service(ChannelService, impl), { port, interceptors });
      const sweeps = startExpirySweeps({
        store,
        clock,
        logger: log,
        bus,
        environment,
        intervalMs: config.sweepIntervalMs,
      });
      return running(name, server.url, async () => {
        await server.close();
        await sweeps.stop();
        await observer.stop();
        await bus.close();
        await store.close();
      });
    }
    case "webhook": {
      const encryptor = encryptorFromConfig(common, { embedded: false });
      const delivery = loadDeliveryConfig(env);
      const store = await openWebhookStore(common, sqlite("webhook.sqlite"));
      const bus = await NatsBus.connect({ servers: common.natsUrl, name: "junction-webhook" });
      const webhook = createWebhookRuntime({
        store,
        encryptor,
        clock,
        logger: log,
        allowPrivateEndpoints: loadAllowPrivateEndpoints(env),
        environment,
        bus,
        connections: connections(),
        channels: createClient(ChannelService, h2cTransport(serviceUrl(env, "channel"))),
        delivery,
        sinks: sinksFor(scriptsClient(env), env),
      });
      const server = await serveH2c((r: ConnectRouter) => r.service(WebhookService, webhook.service), {
        port,
        interceptors,
      });
      await webhook.start();
      return running(name, server.url, async () => {
        await server.close();
        await webhook.stop();
        await bus.close();
        await store.close();
      });
    }
    case "scripts": {
      const bus = await NatsBus.connect({ servers: common.natsUrl, name: "junction-scripts" });
      const stores = await openScriptsStores(common, sqlite("scripts.sqlite"));
      // The proxy logic of /proxy runs in this process: scripts' calls stream to the upstream from here.
      const clients = createGatewayClients(otherServices(env));
      const scripts = createScriptsService({
        scripts: stores.scripts,
        runs: stores.runs,
        store: stores.service,
        clients: () => clients,
        bus,
        clock,
        logger: log,
        environment,
        config: loadScriptsConfig(env),
      });
      const server = await serveH2c((r: ConnectRouter) => r.service(ScriptsService, scripts.service), {
        port,
        interceptors,
      });
      await scripts.start();
      return running(name, server.url, async () => {
        await server.close();
        await scripts.stop();
        await bus.close();
        await stores.close();
      });
    }
    case "gateway": {
      const baseUrl = requireBaseUrl(common);
      const clients = createGatewayClients(otherServices(env));
      const gateway = createGateway({ clients, baseUrl, logger: log });
      // Serve only once the key exists: a healthy gateway must accept the configured key.
      const generated = await bootstrapSecretKey(clients.connection, env.JUNCTION_SECRET_KEY, { waitMs: 60_000 });
      if (generated) printGeneratedKey(generated);
      const server = serveGateway(gateway, { port, hostname: env.JUNCTION_HOST ?? "0.0.0.0" });
      return running(name, server.url, () => server.stop());
    }
  }
}

/** Transports to every service process but the gateway. */
function otherServices(env: Env) {
  return {
    connection: h2cTransport(serviceUrl(env, "connection")),
    proxy: h2cTransport(serviceUrl(env, "proxy")),
    channel: h2cTransport(serviceUrl(env, "channel")),
    webhook: h2cTransport(serviceUrl(env, "webhook")),
    scripts: h2cTransport(serviceUrl(env, "scripts")),
  };
}

/** The webhook process's notification sinks: the scripts service's, when there is one. */
function sinksFor(scripts: ReturnType<typeof scriptsClient>, env: Env) {
  return scripts ? [scriptsNotificationSink(scripts, { cacheMs: loadScriptsConfig(env).subscriptionCacheMs })] : [];
}

function running(name: ServiceName, url: string, stop: () => Promise<void>): RunningService {
  return { name, url, stop };
}
