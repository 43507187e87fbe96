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
import { loadCommonConfig } from "@junction/platform";
import { loadProxySettings } from "@junction/upstream-proxy";
import type { ServiceKey, ServiceSpec } from "./service-spec.ts";

/** How long a connection's deletion waits for its channels to be stopped upstream. */
const CHANNEL_CLEANUP_TIMEOUT_MS = 30_000;

/** Every service but the gateway: what each serves, needs and calls. Both topologies are built from it. */
export const SERVICE_TABLE: readonly ServiceSpec[] = [
  {
    name: "connection",
    definition: ConnectionService,
    defaultPort: 4101,
    needs: {
      clients: ["channel"],
      optionalClients: ["scripts"],
      bus: true,
      encryptor: true,
      database: true,
      baseUrl: true,
    },
    config: (env) => ({
      oauth: loadOAuthSettings(env),
      settings: loadConnectionSettings(env),
      // The built-in providers, and those defined as data in {data dir}/providers/*.json: read with the
      // settings, so a wrong definition stops the start before anything listens.
      providers: ProviderCatalog.fromDataDir(loadCommonConfig(env).dataDir),
    }),
    async build(ctx, { oauth, settings, providers }) {
      // spec: Authentication 4: credentials the operator configured win over the sandbox upstream's.
      if (ctx.testCredentials) oauth.testCredentials = { ...ctx.testCredentials, ...oauth.testCredentials };
      const store = await openConnectionStore(ctx.common, ctx.db);
      const channels = ctx.client("channel");
      const impl = createConnectionService({
        store,
        encryptor: ctx.encryptor,
        clock: ctx.clock,
        logger: ctx.logger,
        bus: ctx.bus,
        providers,
        baseUrl: ctx.baseUrl(),
        oauth,
        settings,
        // Before a connection goes, the channel service stops the channels still active for it.
        stopChannels: async (c) => {
          await channels.stopChannels(c, { timeoutMs: CHANNEL_CLEANUP_TIMEOUT_MS });
        },
        // Lifecycle scripts, when the scripts service runs.
        scripts: ctx.optionalClient("scripts"),
      });
      return { routes: (r) => r.service(ConnectionService, impl), close: () => store.close() };
    },
  } satisfies ServiceSpec<{
    oauth: ReturnType<typeof loadOAuthSettings>;
    settings: ReturnType<typeof loadConnectionSettings>;
    providers: ProviderCatalog;
  }>,
  {
    name: "proxy",
    definition: ProxyService,
    defaultPort: 4102,
    needs: { clients: ["connection"], bus: true },
    config: (env) => loadProxyConfig(env),
    async build(ctx, config) {
      const impl = createProxyService({
        connections: ctx.client("connection"),
        bus: ctx.bus,
        clock: ctx.clock,
        logger: ctx.logger,
        config,
      });
      return { routes: (r) => r.service(ProxyService, impl) };
    },
  } satisfies ServiceSpec<ReturnType<typeof loadProxyConfig>>,
  {
    name: "channel",
    definition: ChannelService,
    defaultPort: 4103,
    needs: { clients: ["connection", "proxy"], bus: true, database: true },
    config: (env) => loadChannelConfig(env),
    async build(ctx, config) {
      const { bus, clock, logger } = ctx;
      const store = await openChannelStore(ctx.common, ctx.db);
      const observer = await observeChannels(bus, store, clock, logger);
      const impl = createChannelService({
        store,
        clock,
        logger,
        environment: ctx.environment,
        proxy: ctx.client("proxy"),
        connections: ctx.client("connection"),
        stopTimeoutMs: config.stopTimeoutMs,
      });
      let sweeps: ReturnType<typeof startExpirySweeps> | undefined;
      return {
        routes: (r) => r.service(ChannelService, impl),
        async start() {
          const environment = ctx.environment;
          sweeps = startExpirySweeps({ store, clock, logger, bus, environment, intervalMs: config.sweepIntervalMs });
        },
        async stop() {
          await sweeps?.stop();
          await observer.stop();
        },
        close: () => store.close(),
      };
    },
  } satisfies ServiceSpec<ReturnType<typeof loadChannelConfig>>,
  {
    name: "webhook",
    definition: WebhookService,
    defaultPort: 4104,
    needs: {
      clients: ["connection", "channel"],
      optionalClients: ["scripts"],
      bus: true,
      encryptor: true,
      database: true,
    },
    config: (env) => ({
      delivery: loadDeliveryConfig(env),
      allowPrivateEndpoints: loadAllowPrivateEndpoints(env),
    }),
    async build(ctx, config) {
      const store = await openWebhookStore(ctx.common, ctx.db);
      const scripts = ctx.optionalClient("scripts");
      const webhook = createWebhookRuntime({
        store,
        encryptor: ctx.encryptor,
        clock: ctx.clock,
        logger: ctx.logger,
        allowPrivateEndpoints: config.allowPrivateEndpoints,
        environment: ctx.environment,
        bus: ctx.bus,
        connections: ctx.client("connection"),
        channels: ctx.client("channel"),
        delivery: config.delivery,
        // Syncs subscribed to webhooks get matched notifications instead of (or as well as) forwarding.
        sinks: scripts
          ? [scriptsNotificationSink(scripts, { cacheMs: loadScriptsConfig(ctx.env).subscriptionCacheMs })]
          : [],
      });
      return {
        routes: (r) => r.service(WebhookService, webhook.service),
        // Resumes undelivered messages and consumes the notification and delivery queues.
        start: () => webhook.start(),
        stop: () => webhook.stop(),
        close: () => store.close(),
      };
    },
  } satisfies ServiceSpec<{ delivery: ReturnType<typeof loadDeliveryConfig>; allowPrivateEndpoints: boolean }>,
  {
    name: "scripts",
    definition: ScriptsService,
    defaultPort: 4105,
    // The proxy logic of /proxy runs in this process: scripts' calls stream to the upstream from here.
    needs: { clients: ["connection", "proxy", "channel", "webhook", "scripts"], bus: true, database: true },
    config: (env) => ({ scripts: loadScriptsConfig(env), proxySettings: loadProxySettings(env) }),
    async build(ctx, config) {
      const stores = await openScriptsStores(ctx.common, ctx.db);
      const clients = {
        connection: ctx.client("connection"),
        proxy: ctx.client("proxy"),
        channel: ctx.client("channel"),
        webhook: ctx.client("webhook"),
        scripts: ctx.client("scripts"),
      };
      const scripts = createScriptsService({
        scripts: stores.scripts,
        runs: stores.runs,
        store: stores.service,
        clients: () => clients,
        bus: ctx.bus,
        clock: ctx.clock,
        logger: ctx.logger,
        environment: ctx.environment,
        config: config.scripts,
        proxySettings: config.proxySettings,
      });
      return {
        routes: (r) => r.service(ScriptsService, scripts.service),
        // Consumes the lifecycle and onWebhook jobs and runs syncs on their schedules.
        start: () => scripts.start(),
        stop: () => scripts.stop(),
        close: () => stores.close(),
      };
    },
  } satisfies ServiceSpec<{
    scripts: ReturnType<typeof loadScriptsConfig>;
    proxySettings: ReturnType<typeof loadProxySettings>;
  }>,
];

/** The table's entry for `name`. */
export function serviceSpec(name: ServiceKey): ServiceSpec {
  const spec = SERVICE_TABLE.find((s) => s.name === name);
  if (!spec) throw new Error(`no service named ${name}`);
  return spec;
}
