import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import type { ChannelServiceDeps } from "./context.ts";
import { channelHandlers } from "./handlers/channels.ts";
import { checkNotificationHandler } from "./handlers/check-notification.ts";
import { stopChannelsHandler } from "./handlers/stop-channels.ts";

/**
 * The ChannelService implementation: the registry's reads, notification checks, and the stop calls
 * Junction makes itself (rollback, deleted connections). The observer records the calls it sees.
 */
export function createChannelService(deps: ChannelServiceDeps): ServiceImpl<typeof ChannelService> {
  return {
    ...channelHandlers(deps),
    ...checkNotificationHandler(deps),
    ...stopChannelsHandler(deps),
    // Built with managed channels (issue 22); until then it says so rather than pretend.
    handleChannelLifecycle: () => {
      throw new ConnectError("channel lifecycle handling is not built yet", Code.Unimplemented);
    },
  };
}
