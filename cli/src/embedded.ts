import { join } from "node:path";
import { createClient, createRouterTransport, type ConnectRouter } from "@connectrpc/connect";
import { MemoryBus } from "@junction/bus";
import { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { createChannelService, observeChannels, openChannelStore } from "@junction/channel-service";
import { createConnectionService, openConnectionStore, ProviderCatalog } from "@junction/connection-service";
import { createGateway, createGatewayClients, type GatewayClients, serveGateway } from "@junction/gateway";
import {
  type Clock,
  createLogger,
  encryptorFromConfig,
  errorBoundary,
  loadCommonConfig,
  type Logger,
  openDatabase,
  systemClock,
} from "@junction/platform";
import { createProxyService } from "@junction/proxy-service";
import { createWebhookService, openWebhookStore } from "@junction/webhook-service";
import { bootstrapSecretKey } from "./secret-key-bootstrap.ts";
import { boolEnv } from "./env.ts";

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
  const db = openDatabase(join(common.dataDir, "junction.sqlite"));
  const bus = new MemoryBus(db, { clock });

  // Bind the port first: the base URL (webhook URLs, OAuth redirect) depends on it.
  let fetchImpl: (req: Request) => Promise<Response> = async () => new Response("starting", { status: 503 });
  const server = serveGateway({ fetch: (req) => fetchImpl(req) } as Parameters<typeof serveGateway>[0], {
    port: options.port ?? Number(env.PORT ?? 3003),
    hostname: options.hostname ?? env.JUNCTION_HOST ?? "0.0.0.0",
  });
  const baseUrl = (common.baseUrl ?? `http://localhost:${server.port}`).replace(/\/+$/, "");

  const connectionStore = await openConnectionStore(common, db);
  const connectionImpl = createConnectionService({
    store: connectionStore,
    encryptor,
    clock,
    logger: logger.child({ component: "connection" }),
    bus,
    providers: new ProviderCatalog(),
    baseUrl,
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

  const routes = (r: ConnectRouter) => {
    r.service(ConnectionService, connectionImpl);
    r.service(ProxyService, createProxyService({ connections, clock, logger: logger.child({ component: "proxy" }) }));
    r.service(
      ChannelService,
      createChannelService({ store: channelStore, clock, logger: logger.child({ component: "channel" }), environment }),
    );
    r.service(
      WebhookService,
      createWebhookService({
        store: webhookStore,
        encryptor,
        clock,
        logger: logger.child({ component: "webhook" }),
        allowPrivateEndpoints: boolEnv(env.JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS),
        environment,
      }),
    );
  };
  const transport = createRouterTransport(routes, { router: { interceptors } });
  const clients = createGatewayClients(transport);
  const gateway = createGateway({
    clients,
    baseUrl,
    logger: logger.child({ component: "gateway" }),
    now: () => clock.now(),
  });
  fetchImpl = gateway.fetch;

  const generatedSecretKey = await bootstrapSecretKey(connections, env.JUNCTION_SECRET_KEY);
  logger.info("junction started", { topology: "embedded", port: server.port, baseUrl, dataDir: common.dataDir });

  return {
    url: server.url,
    port: server.port,
    baseUrl,
    clients,
    generatedSecretKey,
    async stop() {
      await server.stop();
      await channelObserver.stop();
      await bus.close();
      await Promise.all([connectionStore.close(), channelStore.close(), webhookStore.close()]);
      db.close();
    },
  };
}
