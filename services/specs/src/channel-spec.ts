import {
  type ChannelConfig,
  type ChannelStore,
  createChannelService,
  loadChannelConfig,
  observeChannels,
  openChannelStore,
  startExpirySweeps,
} from "@junction/channel-service";
import { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import type { ServiceSpec } from "@junction/wiring";

/** The channel service in the service table: the channel registry, its observer and expiry sweeps. */
export const channelSpec: ServiceSpec<ChannelConfig, { store: ChannelStore }> = {
  name: "channel",
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
      parts: { store },
    };
  },
};
