import {
  type ChannelConfig,
  ChannelTokens,
  type ChannelStore,
  createChannelService,
  createManagedChannels,
  loadChannelConfig,
  observeChannels,
  openChannelStore,
  registerChannelGauges,
  resealChannelTokens,
  startExpirySweeps,
} from "@junction/channel-service";
import { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import type { ServiceSpec } from "@junction/wiring";

/**
 * The channel service in the service table: the channel registry, its observer and expiry sweeps, and
 * the managed channels of integrations with managed_channels (created, renewed, recreated by Junction).
 */
export const channelSpec: ServiceSpec<ChannelConfig, { store: ChannelStore }> = {
  name: "channel",
  defaultPort: 4103,
  needs: { clients: ["connection", "proxy"], bus: true, database: true, encryptor: true },
  config: (env) => loadChannelConfig(env),
  async build(ctx, config) {
    const { bus, clock, logger } = ctx;
    const store = await openChannelStore(ctx.common, ctx.db);
    const tokens = new ChannelTokens(ctx.encryptor);
    // Tokens stored before they were sealed are sealed before anything reads them.
    const sealed = await resealChannelTokens(store, tokens, { unsealedOnly: true });
    if (sealed.rewritten > 0) logger.info("channel tokens sealed", { channels: sealed.rewritten });
    const observer = await observeChannels(bus, store, clock, logger, tokens);
    const proxy = ctx.client("proxy");
    const connections = ctx.client("connection");
    const managed = createManagedChannels({
      store,
      tokens,
      clock,
      logger,
      bus,
      environment: ctx.environment,
      proxy,
      connections,
      timeoutMs: config.stopTimeoutMs,
      pollIntervalMs: config.managedPollIntervalMs,
      metrics: ctx.metrics,
      operations: ctx.operations,
    });
    registerChannelGauges(ctx.metrics, store, ctx.environment, () => clock.now());
    const impl = createChannelService({
      store,
      tokens,
      clock,
      logger,
      environment: ctx.environment,
      proxy,
      connections,
      stopTimeoutMs: config.stopTimeoutMs,
      bus,
      managed,
      metrics: ctx.metrics,
      operations: ctx.operations,
    });
    let sweeps: ReturnType<typeof startExpirySweeps> | undefined;
    return {
      routes: (r) => r.service(ChannelService, impl),
      async start() {
        const environment = ctx.environment;
        sweeps = startExpirySweeps({ store, clock, logger, bus, environment, intervalMs: config.sweepIntervalMs });
        await managed.start();
      },
      async stop() {
        await managed.stop();
        await sweeps?.stop();
        await observer.stop();
      },
      close: () => store.close(),
      parts: { store },
    };
  },
};
