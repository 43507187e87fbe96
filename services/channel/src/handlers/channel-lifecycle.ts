import type { ServiceImpl } from "@connectrpc/connect";
import { ChannelLifecycleEvent, type ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import type { ChannelServiceDeps } from "../context.ts";
import { errors } from "../errors.ts";
import { type ChannelEvent, enqueueChannelEvent } from "../managed/managed-webhook.ts";
import { STOPPED_REASON } from "../store/managed-records.ts";
import type { ChannelRecord } from "../store/records.ts";

/**
 * HandleChannelLifecycle: what the upstream said about a channel itself. For a
 * managed channel Junction acts: reauthorization required renews it, removed recreates it. For any
 * other the customer is told (a "channel" webhook), since their scripts own it; a removed channel is
 * marked stopped either way.
 */
export function channelLifecycleHandler(
  deps: ChannelServiceDeps,
): Pick<ServiceImpl<typeof ChannelService>, "handleChannelLifecycle"> {
  return {
    async handleChannelLifecycle(req) {
      if (!req.channelId) throw errors.invalidField("channel_id", "is required");
      if (req.event !== ChannelLifecycleEvent.REAUTHORIZATION_REQUIRED && req.event !== ChannelLifecycleEvent.REMOVED) {
        throw errors.invalidField("event", "must be reauthorization required or removed");
      }
      const env = req.environmentId || (await deps.environment());
      const now = deps.clock.now();
      const channel = await deps.store.get(env, req.channelId, now);
      if (!channel) throw errors.unknownChannel(req.channelId);
      const managed = await isManaged(deps, channel);
      const log = deps.logger.child({
        component: "channel-lifecycle",
        channelId: channel.id,
        connectionId: channel.connectionId,
        integration: channel.providerConfigKey,
        notificationId: req.notificationId || undefined,
      });
      const tell = (event: Omit<ChannelEvent, "managed" | "channel">) =>
        enqueueChannelEvent(deps.bus as NonNullable<typeof deps.bus>, channel, { ...event, managed, channel }, now);

      if (req.event === ChannelLifecycleEvent.REAUTHORIZATION_REQUIRED) {
        if (managed && deps.managed) {
          const slot = await deps.managed.schedule(channel, "reauthorization_required");
          // A success leaves the slot waiting for the next renewal; anything else is still to be done.
          const done = slot !== null && slot.lastError === null && slot.reason === "renewal";
          log.info("managed channel reauthorization handled", { renewed: done });
          return { action: done ? "renewed" : "renewal_scheduled" };
        }
        if (!deps.bus) return { action: "ignored" };
        await tell({ operation: "reauthorization_required", reason: "reauthorization_required" });
        log.info("channel needs reauthorization; the customer is told");
        return { action: "customer_told" };
      }

      const stopped = await deps.store.recordStop(env, channel.id, channel.resourceId, now);
      if (stopped) log.info("channel removed by the upstream, recorded as stopped");
      if (stopped && deps.bus) await tell({ operation: "removed", reason: "removed" });
      if (managed && deps.managed) {
        const slot = await deps.managed.schedule(channel, "removed");
        const done =
          slot !== null && slot.lastError === null && slot.reason === "renewal" && slot.channelId !== channel.id;
        return { action: done ? "recreated" : "recreation_scheduled" };
      }
      return { action: stopped ? "stopped" : "ignored" };
    },
  };
}

/** Whether the channel is the one Junction keeps for its connection (its slot not stopped). */
async function isManaged(deps: ChannelServiceDeps, channel: ChannelRecord): Promise<boolean> {
  if (!deps.managed) return false;
  const slot = await deps.store.managed.getManaged(channel);
  return slot !== null && slot.channelId === channel.id && slot.reason !== STOPPED_REASON;
}
