import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { loadCommonConfig } from "@junction/platform";
import type { ServiceSpec } from "@junction/wiring";
import {
  type ConnectionSettings,
  createConnectionService,
  loadConnectionSettings,
  loadOAuthSettings,
  type OAuthSettings,
  openConnectionStore,
  ProviderCatalog,
  startAbandonedAuthorizationSweeps,
} from "@junction/connection-service";
import type { ConnectionServiceStore } from "@junction/connection-service/store/store";

/** How often the providers defined over the API are read again (another process may have defined one). */
const PROVIDER_RELOAD_MS = 10_000;

/** How long a connection's deletion waits for its channels to be stopped upstream. */
const CHANNEL_CLEANUP_TIMEOUT_MS = 30_000;

/** The connection service's settings. */
export interface ConnectionServiceConfig {
  oauth: OAuthSettings;
  settings: ConnectionSettings;
  /** The providers it knows; the built-in catalogue unless a test gives its own. */
  providers?: ProviderCatalog;
}

/**
 * The connection service in the service table: integrations, connections, OAuth, matching, refresh, and the
 * sweep that records the authorizations never come back.
 */
export const connectionSpec: ServiceSpec<ConnectionServiceConfig, { store: ConnectionServiceStore }> = {
  name: "connection",
  defaultPort: 4101,
  needs: {
    clients: ["channel"],
    optionalClients: ["scripts"],
    bus: true,
    encryptor: true,
    database: true,
    baseUrl: true,
  },
  config: (env) => {
    const settings = loadConnectionSettings(env);
    return {
      oauth: loadOAuthSettings(env),
      settings,
      // The built-in providers, and those defined as data in {data dir}/providers/*.json: read with the
      // settings, so a wrong definition stops the start before anything listens.
      providers: ProviderCatalog.fromDataDir(loadCommonConfig(env).dataDir, settings.allowedPrivateHosts),
    };
  },
  async build(ctx, { oauth, settings, providers }) {
    // spec: Authentication 4: credentials the operator configured win over the sandbox upstream's.
    if (ctx.testCredentials) oauth.testCredentials = { ...ctx.testCredentials, ...oauth.testCredentials };
    const store = await openConnectionStore(ctx.common, ctx.db);
    const catalog = providers ?? new ProviderCatalog();
    // The providers defined over the API (POST /providers) are stored with the integrations: read at
    // start, and again every PROVIDER_RELOAD_MS so that each process of the service sees the others'.
    await catalog.reload(store, ctx.logger);
    const reload = setInterval(() => {
      catalog.reload(store, ctx.logger).catch((err) => {
        ctx.logger.warn("provider definitions not reloaded", { error: (err as Error).message });
      });
    }, PROVIDER_RELOAD_MS);
    reload.unref();
    const channels = ctx.client("channel");
    const impl = createConnectionService({
      store,
      encryptor: ctx.encryptor,
      clock: ctx.clock,
      logger: ctx.logger,
      bus: ctx.bus,
      providers: catalog,
      baseUrl: ctx.baseUrl(),
      oauth,
      settings,
      // Before a connection goes, the channel service stops the channels still active for it.
      stopChannels: async (c) => {
        await channels.stopChannels(c, { timeoutMs: CHANNEL_CLEANUP_TIMEOUT_MS });
      },
      // Lifecycle scripts, when the scripts service runs.
      scripts: ctx.optionalClient("scripts"),
      metrics: ctx.metrics,
      operations: ctx.operations,
      ...(ctx.tracing ? { tracing: ctx.tracing } : {}),
      ...(ctx.lookup ? { lookup: ctx.lookup } : {}),
    });
    let sweeps: ReturnType<typeof startAbandonedAuthorizationSweeps> | undefined;
    return {
      routes: (r) => r.service(ConnectionService, impl),
      async start() {
        // Authorizations never come back are recorded once their state expires (claimed: once across processes).
        sweeps = startAbandonedAuthorizationSweeps({
          store,
          clock: ctx.clock,
          logger: ctx.logger,
          operations: ctx.operations,
          intervalMs: oauth.abandonedSweepIntervalMs,
        });
      },
      async stop() {
        await sweeps?.stop();
      },
      close: () => {
        clearInterval(reload);
        return store.close();
      },
      parts: { store },
    };
  },
};
