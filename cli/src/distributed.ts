import { join } from "node:path";
import { createClient, type ConnectRouter } from "@connectrpc/connect";
import { NatsBus } from "@junction/bus";
import { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { createChannelService, observeChannels, openChannelStore } from "@junction/channel-service";
import {
  createConnectionService,
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
  h2cTransport,
  loadCommonConfig,
  type Logger,
  openDatabase,
  serveH2c,
  systemClock,
} from "@junction/platform";
import { createProxyService, loadProxyConfig } from "@junction/proxy-service";
import { createWebhookRuntime, loadDeliveryConfig, openWebhookStore } from "@junction/webhook-service";
import { boolEnv } from "./env.ts";
import { bootstrapSecretKey, printGeneratedKey } from "./secret-key-bootstrap.ts";

export const SERVICES = ["connection", "proxy", "channel", "webhook", "gateway"] as const;
export type ServiceName = (typeof SERVICES)[number];

const DEFAULT_PORTS: Record<ServiceName, number> = {
  gateway: 3003,
  connection: 4101,
  proxy: 4102,
  channel: 4103,
  webhook: 4104,
};

export interface RunningService {
  name: ServiceName;
  url: string;
  stop(): Promise<void>;
}

type Env = Record<string, string | undefined>;

function servicePort(env: Env, name: ServiceName): number {
  const raw = name === "gateway" ? env.PORT : env[`JUNCTION_${name.toUpperCase()}_PORT`];
  return raw ? Number(raw) : DEFAULT_PORTS[name];
}

/** URL of another service process: JUNCTION_<NAME>_URL, or localhost on its default port. */
function serviceUrl(env: Env, name: Exclude<ServiceName, "gateway">): string {
  return env[`JUNCTION_${name.toUpperCase()}_URL`] ?? `http://127.0.0.1:${DEFAULT_PORTS[name]}`;
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
      const impl = createConnectionService({
        store,
        encryptor,
        clock,
        logger: log,
        bus,
        providers: new ProviderCatalog(),
        baseUrl,
        oauth: loadOAuthSettings(env),
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
      const observer = await observeChannels(bus, store, clock, log);
      const impl = createChannelService({ store, clock, logger: log, environment });
      const server = await serveH2c((r: ConnectRouter) => r.service(ChannelService, impl), { port, interceptors });
      return running(name, server.url, async () => {
        await server.close();
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
        allowPrivateEndpoints: boolEnv(env.JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS),
        environment,
        bus,
        connections: connections(),
        channels: createClient(ChannelService, h2cTransport(serviceUrl(env, "channel"))),
        delivery,
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
    case "gateway": {
      const baseUrl = requireBaseUrl(common);
      const clients = createGatewayClients({
        connection: h2cTransport(serviceUrl(env, "connection")),
        proxy: h2cTransport(serviceUrl(env, "proxy")),
        channel: h2cTransport(serviceUrl(env, "channel")),
        webhook: h2cTransport(serviceUrl(env, "webhook")),
      });
      const gateway = createGateway({ clients, baseUrl, logger: log });
      // Serve only once the key exists: a healthy gateway must accept the configured key.
      const generated = await bootstrapSecretKey(clients.connection, env.JUNCTION_SECRET_KEY, { waitMs: 60_000 });
      if (generated) printGeneratedKey(generated);
      const server = serveGateway(gateway, { port, hostname: env.JUNCTION_HOST ?? "0.0.0.0" });
      return running(name, server.url, () => server.stop());
    }
  }
}

function running(name: ServiceName, url: string, stop: () => Promise<void>): RunningService {
  return { name, url, stop };
}
