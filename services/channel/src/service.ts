import type { ServiceImpl } from "@connectrpc/connect";
import type { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import type { ChannelServiceDeps } from "./context.ts";
import { channelHandlers } from "./handlers/channels.ts";
import { checkNotificationHandler } from "./handlers/check-notification.ts";

/** The ChannelService implementation: the registry's read side (the observer writes it). */
export function createChannelService(deps: ChannelServiceDeps): ServiceImpl<typeof ChannelService> {
  return { ...channelHandlers(deps), ...checkNotificationHandler(deps) };
}
