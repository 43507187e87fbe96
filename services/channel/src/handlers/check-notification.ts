import type { ServiceImpl } from "@connectrpc/connect";
import type { ChannelService, CheckNotificationRequest } from "@junction/contracts/channel/v1/channel_service_pb";
import type { ChannelServiceDeps } from "../context.ts";
import { errors } from "../errors.ts";

/** Channel ids are at most 64 characters (spec: Limits); anything longer cannot be in the registry. */
const MAX_CHANNEL_ID = 64;
/** Most notifications in one CheckNotifications call. */
const MAX_BATCH = 1000;

/**
 * CheckNotification: whether a notification's channel token matches the one its channel was
 * created with, and, when the notification may be accepted, its message number recorded; with the
 * channel's integration and connection, so that a notification matched by its channel carries them.
 */
export function checkNotificationHandler(
  deps: ChannelServiceDeps,
): Pick<ServiceImpl<typeof ChannelService>, "checkNotifications"> {
  return {
    // Every request is checked before any is recorded: a bad batch records nothing.
    async checkNotifications(req) {
      if (req.requests.length > MAX_BATCH) {
        throw errors.invalidField("requests", `must hold at most ${MAX_BATCH} notifications`);
      }
      for (const r of req.requests) validate(r);
      // Together, not one after another: the message numbers they record then share one transaction
      // of the store's group commit instead of waiting a commit each.
      return { results: await Promise.all(req.requests.map((r) => check(deps, r))) };
    },
  };
}

function validate(req: CheckNotificationRequest): void {
  if (!req.channelId) throw errors.invalidField("channel_id", "is required");
  if (req.messageNumber < 0n) throw errors.invalidField("message_number", "must not be negative");
}

async function check(
  deps: ChannelServiceDeps,
  req: CheckNotificationRequest,
): Promise<{ known: boolean; tokenMatches: boolean; providerConfigKey?: string; connectionId?: string }> {
  const env = req.environmentId || (await deps.environment());
  const now = deps.clock.now();
  if (req.channelId.length > MAX_CHANNEL_ID) return { known: false, tokenMatches: true };
  const channel = await deps.store.get(env, req.channelId, now);
  if (!channel) return { known: false, tokenMatches: true };
  // A channel created without a token has nothing to check against.
  const tokenMatches = deps.tokens.matches(channel, req.token);
  if (tokenMatches && req.messageNumber > 0n) {
    await deps.store.recordNotification(env, req.channelId, Number(req.messageNumber), now);
  }
  if (!tokenMatches) return { known: true, tokenMatches };
  return {
    known: true,
    tokenMatches,
    providerConfigKey: channel.providerConfigKey,
    connectionId: channel.connectionId,
  };
}
