import type { ServiceImpl } from "@connectrpc/connect";
import { type ChannelService, ChannelState } from "@junction/contracts/channel/v1/channel_service_pb";
import type { ChannelServiceDeps } from "../context.ts";
import { errors } from "../errors.ts";
import { stateFilter, toChannel } from "../mappers.ts";

/** Longer than any channel lives (the upstream clamps expirations to weeks). */
const MAX_EXPIRING_WITHIN_MS = BigInt(366 * 24 * 3_600_000);

/** ListChannels and GetChannel: reads of the registry, at the clock's time. */
export function channelHandlers(
  deps: ChannelServiceDeps,
): Pick<ServiceImpl<typeof ChannelService>, "listChannels" | "getChannel"> {
  return {
    async listChannels(req) {
      const env = await deps.environment();
      const state = stateFilter(req.state);
      if (state === undefined && req.state !== ChannelState.UNSPECIFIED) {
        throw errors.invalidField("state", "must be a known channel state");
      }
      if (req.expiringWithinMs < 0n || req.expiringWithinMs > MAX_EXPIRING_WITHIN_MS) {
        throw errors.invalidField("expiring_within_ms", "must be between 0 and 366 days");
      }
      const now = deps.clock.now();
      const channels = await deps.store.list(
        env,
        {
          providerConfigKey: req.providerConfigKey || undefined,
          connectionId: req.connectionId || undefined,
          state,
          expiringBefore: req.expiringWithinMs > 0n ? now + Number(req.expiringWithinMs) : undefined,
        },
        now,
      );
      return { channels: channels.map(toChannel) };
    },

    async getChannel(req) {
      if (!req.id) throw errors.invalidField("id", "is required");
      const env = await deps.environment();
      const channel = await deps.store.get(env, req.id, deps.clock.now());
      if (!channel) throw errors.unknownChannel(req.id);
      return { channel: toChannel(channel) };
    },
  };
}
