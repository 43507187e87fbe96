import type { ServiceImpl } from "@connectrpc/connect";
import type { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import type { ChannelServiceDeps } from "./context.ts";
import { channelLifecycleHandler } from "./handlers/channel-lifecycle.ts";
import { channelHandlers } from "./handlers/channels.ts";
import { checkNotificationHandler } from "./handlers/check-notification.ts";
import { stopChannelsHandler } from "./handlers/stop-channels.ts";

/**
 * The ChannelService implementation: the registry's reads, notification checks, the stop calls
 * Junction makes itself (rollback, deleted connections) and the upstream's lifecycle notifications.
 * The observer records the calls it sees; managed channels (managed/) create and renew them.
 */
export function createChannelService(deps: ChannelServiceDeps): ServiceImpl<typeof ChannelService> {
  return {
    ...channelHandlers(deps),
    ...checkNotificationHandler(deps),
    ...stopChannelsHandler(deps),
    ...channelLifecycleHandler(deps),
  };
}
