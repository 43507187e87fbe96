import type { ServiceImpl } from "@connectrpc/connect";
import { type ChannelService, StopOutcome } from "@junction/contracts/channel/v1/channel_service_pb";
import { fromConnectError } from "@junction/platform";
import { channelProvider } from "../channel-providers.ts";
import type { ChannelServiceDeps } from "../context.ts";
import { errors } from "../errors.ts";
import { channelStops, type StopResult, stopUpstream } from "../upstream-stop.ts";

/** Upstream stop calls in flight at once. */
const STOP_CONCURRENCY = 4;
const DEFAULT_STOP_TIMEOUT_MS = 15_000;

const OUTCOMES: Record<StopResult["outcome"], StopOutcome> = {
  stopped: StopOutcome.STOPPED,
  gone: StopOutcome.GONE,
  failed: StopOutcome.FAILED,
};

/**
 * StopChannels: the spec's rollback ("stop webhooks by calling channel stop for each channel") for a
 * whole integration, and Junction's own cleanup of a connection that is being deleted.
 */
export function stopChannelsHandler(
  deps: ChannelServiceDeps,
): Pick<ServiceImpl<typeof ChannelService>, "stopChannels"> {
  return {
    async stopChannels(req) {
      if (!req.providerConfigKey) throw errors.invalidField("provider_config_key", "is required");
      const proxy = deps.proxy;
      if (!proxy) throw errors.stopsUnavailable();
      const env = req.environmentId || (await deps.environment());
      // A rollback names an integration: it must exist and have channels. A connection's cleanup
      // does not need the check: it stops what the registry holds, if anything.
      if (!req.connectionId && deps.connections) await checkIntegration(deps, req.providerConfigKey);
      // Managed channels are not renewed or recreated any more: a run in progress stops what it creates.
      await deps.store.managed.cancelManaged(
        env,
        req.providerConfigKey,
        req.connectionId || undefined,
        deps.clock.now(),
      );
      const channels = await deps.store.list(
        env,
        { providerConfigKey: req.providerConfigKey, connectionId: req.connectionId || undefined, state: "active" },
        deps.clock.now(),
      );
      const results = await stopAll(upstreamStopDeps(deps, proxy), channels);
      deps.logger.info("channels stop requested", {
        integration: req.providerConfigKey,
        connectionId: req.connectionId || undefined,
        channels: channels.length,
        failed: results.filter((r) => r.outcome === "failed").length,
      });
      return {
        results: channels.map((c, i) => {
          const r = results[i] as StopResult;
          return {
            channelId: c.id,
            connectionId: c.connectionId,
            outcome: OUTCOMES[r.outcome],
            status: r.status,
            code: r.outcome === "failed" ? r.code : "",
            message: r.outcome === "failed" ? r.message : "",
          };
        }),
      };
    },
  };
}

type StopDeps = Parameters<typeof stopUpstream>[0];
type StoppableChannel = Parameters<typeof stopUpstream>[1];

function upstreamStopDeps(deps: ChannelServiceDeps, proxy: StopDeps["proxy"]): StopDeps {
  return {
    proxy,
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger,
    fetch: deps.fetch ?? ((input, init) => fetch(input, init)),
    timeoutMs: deps.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS,
    stops: channelStops(deps.metrics),
    tokens: deps.tokens,
    operations: deps.operations,
  };
}

/** Stops each channel upstream, STOP_CONCURRENCY at a time; the results in the channels' order. */
async function stopAll(stopDeps: StopDeps, channels: readonly StoppableChannel[]): Promise<StopResult[]> {
  const results = new Array<StopResult>(channels.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < channels.length; i = next++) {
      results[i] = await stopUpstream(stopDeps, channels[i] as StoppableChannel);
    }
  };
  await Promise.all(Array.from({ length: Math.min(STOP_CONCURRENCY, channels.length) }, worker));
  return results;
}

async function checkIntegration(deps: ChannelServiceDeps, key: string): Promise<void> {
  const { integration } = await (deps.connections as NonNullable<ChannelServiceDeps["connections"]>)
    .getIntegration({ uniqueKey: key })
    .catch((err: unknown) => {
      // Keeps the connection service's code (unknown_provider_config) across this hop.
      throw fromConnectError(err);
    });
  if (!channelProvider(integration?.provider ?? "")) throw errors.integrationHasNoChannels(key);
}
