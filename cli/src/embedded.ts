import { join } from "node:path";
import { createClient, createRouterTransport, type ConnectRouter } from "@connectrpc/connect";
import { type Bus, MemoryBus } from "@junction/bus";
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
import { createGateway, createGatewayClients, type GatewayClients, serveGateway } from "@junction/gateway";
import {
  type Clock,
  createLogger,
  encryptorFromConfig,
  errorBoundary,
  loadCommonConfig,
  loadPort,
  type Logger,
  openDatabase,
  systemClock,
} from "@junction/platform";
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
import { bootstrapSecretKey } from "./secret-key-bootstrap.ts";
import { boolEnv } from "./env.ts";

/** How long a connection's deletion waits for its channels to be stopped upstream. */
const CHANNEL_CLEANUP_TIMEOUT_MS = 30_000;

export interface EmbeddedOptions {
  env?: Record<string, string | undefined>;
  /** Overrides PORT (0 picks a free port). */
  port?: number;
  hostname?: string;
  clock?: Clock;
  logger?: Logger;
}

export interface EmbeddedJunction {
  url: string;
  port: number;
  baseUrl: string;
  clients: GatewayClients;
  /** The in-process bus (tests publish events on it). */
  bus: Bus;
  /** The secret key generated on first start, if one was. */
  generatedSecretKey: string | undefined;
  stop(): Promise<void>;
}

/**
 * The embedded default: every service in this process, Connect over an in-memory router transport, the
 * in-process bus, and one SQLite file in the data dir.
 */
export async function startEmbedded(options: EmbeddedOptions = {}): Promise<EmbeddedJunction> {
  const env = options.env ?? process.env;
  const common = loadCommonConfig(env);
  const logger = options.logger ?? createLogger();
  const clock = options.clock ?? systemClock;
  const encryptor = encryptorFromConfig(common, { embedded: true });
  const oauth = loadOAuthSettings(env);
  const connectionSettings = loadConnectionSettings(env);
  const proxyConfig = loadProxyConfig(env);
  const channelConfig = loadChannelConfig(env);
  const scriptsConfig = loadScriptsConfig(env);
  const db = openDatabase(join(common.dataDir, "junction.sqlite"));
  const bus = new MemoryBus(db, { clock });

  // Bind the port first: the base URL (webhook URLs, OAuth redirect) depends on it.
  let fetchImpl: (req: Request) => Promise<Response> = async () => new Response("starting", { status: 503 });
  const server = serveGateway({ fetch: (req) => fetchImpl(req) } as Parameters<typeof serveGateway>[0], {
    port: options.port ?? loadPort(env, "", 3003),
    hostname: options.hostname ?? env.JUNCTION_HOST ?? "0.0.0.0",
  });
  const baseUrl = (common.baseUrl ?? `http://localhost:${server.port}`).replace(/\/+$/, "");

  // spec: Authentication 4: the built-in sandbox upstream offers test credentials for trying Junction
  // with no upstream account; credentials the operator configured win.
  const sandbox = boolEnv(env.JUNCTION_SANDBOX_UPSTREAM)
    ? await (await import("@junction/sandbox-upstream")).startSandboxUpstream({
        port: Number(env.JUNCTION_SANDBOX_UPSTREAM_PORT ?? 0),
        now: () => clock.now(),
      })
    : undefined;
  if (sandbox) {
    oauth.testCredentials = { ...sandbox.testCredentials, ...oauth.testCredentials };
    logger.info("sandbox upstream listening", { url: sandbox.url });
  }
  const connectionStore = await openConnectionStore(common, db);
  const connectionImpl = createConnectionService({
    store: connectionStore,
    encryptor,
    clock,
    logger: logger.child({ component: "connection" }),
    bus,
    providers: new ProviderCatalog(),
    baseUrl,
    oauth,
    settings: connectionSettings,
    // Before a connection goes, Junction stops the channels still active for it (channel service).
    stopChannels: async (c) => {
      await channels.stopChannels(c, { timeoutMs: CHANNEL_CLEANUP_TIMEOUT_MS });
    },
    // Lifecycle scripts (the scripts service, registered below, is called through the router).
    scripts: { runLifecycleEvent: (req, callOptions) => clients.scripts.runLifecycleEvent(req, callOptions) },
  });
  const interceptors = [errorBoundary(logger)];
  const connectionOnly = createRouterTransport((r) => r.service(ConnectionService, connectionImpl), {
    router: { interceptors },
  });
  const connections = createClient(ConnectionService, connectionOnly);
  const environment = async () => (await connections.getEnvironment({})).environment?.id ?? "";

  const channelStore = await openChannelStore(common, db);
  const channelObserver = await observeChannels(bus, channelStore, clock, logger.child({ component: "channel" }));
  const webhookStore = await openWebhookStore(common, db);
  // The webhook service's workers call the channel registry: it gets its own transport, as connections do.
  const proxyImpl = createProxyService({
    connections,
    bus,
    clock,
    logger: logger.child({ component: "proxy" }),
    config: proxyConfig,
  });
  const channelImpl = createChannelService({
    store: channelStore,
    clock,
    logger: logger.child({ component: "channel" }),
    environment,
    proxy: createClient(
      ProxyService,
      createRouterTransport((r) => r.service(ProxyService, proxyImpl), { router: { interceptors } }),
    ),
    connections,
    stopTimeoutMs: channelConfig.stopTimeoutMs,
  });
  const channels = createClient(
    ChannelService,
    createRouterTransport((r) => r.service(ChannelService, channelImpl), { router: { interceptors } }),
  );
  const webhook = createWebhookRuntime({
    store: webhookStore,
    encryptor,
    clock,
    logger: logger.child({ component: "webhook" }),
    allowPrivateEndpoints: loadAllowPrivateEndpoints(env),
    environment,
    bus,
    connections,
    channels,
    delivery: loadDeliveryConfig(env),
    // Syncs subscribed to webhooks get matched notifications instead of (or as well as) forwarding.
    sinks: [
      scriptsNotificationSink(
        { dispatchNotification: (req, callOptions) => clients.scripts.dispatchNotification(req, callOptions) },
        { cacheMs: scriptsConfig.subscriptionCacheMs },
      ),
    ],
  });
  const scriptsStores = await openScriptsStores(common, db);
  const scripts = createScriptsService({
    scripts: scriptsStores.scripts,
    runs: scriptsStores.runs,
    store: scriptsStores.service,
    clients: () => clients,
    bus,
    clock,
    logger: logger.child({ component: "scripts" }),
    environment,
    config: scriptsConfig,
  });

  const routes = (r: ConnectRouter) => {
    r.service(ConnectionService, connectionImpl);
    r.service(ProxyService, proxyImpl);
    r.service(ChannelService, channelImpl);
    r.service(WebhookService, webhook.service);
    r.service(ScriptsService, scripts.service);
  };
  const transport = createRouterTransport(routes, { router: { interceptors } });
  const clients = createGatewayClients(transport);
  const gateway = createGateway({
    clients,
    baseUrl,
    logger: logger.child({ component: "gateway" }),
    clock,
  });
  fetchImpl = gateway.fetch;

  const generatedSecretKey = await bootstrapSecretKey(connections, env.JUNCTION_SECRET_KEY);
  // Resumes undelivered messages and consumes the notification and delivery queues.
  await webhook.start();
  // Consumes the lifecycle and onWebhook jobs and runs syncs on their schedules.
  await scripts.start();
  const channelSweeps = startExpirySweeps({
    store: channelStore,
    clock,
    logger: logger.child({ component: "channel" }),
    bus,
    environment,
    intervalMs: channelConfig.sweepIntervalMs,
  });
  logger.info("junction started", { topology: "embedded", port: server.port, baseUrl, dataDir: common.dataDir });

  return {
    url: server.url,
    port: server.port,
    baseUrl,
    clients,
    bus,
    generatedSecretKey,
    async stop() {
      await server.stop();
      await sandbox?.stop();
      await webhook.stop();
      await scripts.stop();
      await channelSweeps.stop();
      await channelObserver.stop();
      await bus.close();
      await Promise.all([connectionStore.close(), channelStore.close(), webhookStore.close(), scriptsStores.close()]);
      db.close();
    },
  };
}
