import type { Client } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  ChannelService,
  CheckNotificationRequestSchema,
  CheckNotificationResponse,
} from "@junction/contracts/channel/v1/channel_service_pb";
import type {
  ConnectionService,
  MatchNotificationRequestSchema,
  MatchNotificationResponse,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { Batcher } from "@junction/platform";

type CheckRequest = MessageInitShape<typeof CheckNotificationRequestSchema>;
type MatchRequest = MessageInitShape<typeof MatchNotificationRequestSchema>;

/** The channel and connection service calls made for each notification. */
export interface NotificationLookups {
  /** ChannelService.CheckNotifications: the channel token, and the message number recorded. */
  check(req: CheckRequest): Promise<CheckNotificationResponse>;
  /** ConnectionService.MatchNotifications: the connections it is for (spec: matching rules 1–5). */
  match(req: MatchRequest): Promise<MatchNotificationResponse>;
}

/**
 * The lookups of the notifications handled at the same time, gathered into CheckNotifications and
 * MatchNotifications calls (see Batcher): one call for many notifications instead of one each. A
 * batch call that fails is made again as one batch of one per notification, so that a notification
 * the batch refuses (say, its integration deleted meanwhile) fails alone, with its own error, and a
 * service that is down fails each one as before.
 */
export function batchedLookups(
  connections: Client<typeof ConnectionService>,
  channels: Client<typeof ChannelService>,
): NotificationLookups {
  const checks = new Batcher(
    async (requests: CheckRequest[]) => (await channels.checkNotifications({ requests })).results,
  );
  const matches = new Batcher(
    async (requests: MatchRequest[]) => (await connections.matchNotifications({ requests })).results,
  );
  return {
    check: (req) => checks.call(req).catch(async () => one(await channels.checkNotifications({ requests: [req] }))),
    match: (req) => matches.call(req).catch(async () => one(await connections.matchNotifications({ requests: [req] }))),
  };
}

/** The result of a batch of one. */
function one<T>(res: { results: T[] }): T {
  const [result] = res.results;
  if (result === undefined) throw new Error("a batch of one answered no result");
  return result;
}

/** What the channel check says of a notification's channel. */
export interface ChannelCheck {
  /** The channel is in the registry. */
  known: boolean;
  /** False only when the channel was created with a token and the notification's differs. */
  tokenMatches: boolean;
  /** The connection that created the channel, when it is a channel of the notification's integration; "" otherwise. */
  connectionId: string;
}

/**
 * Whether a notification's channel is in the registry and its token matches its channel's (and, when
 * it may be accepted, its message number recorded), with the channel's connection: the one channel
 * check, made at receipt, or by the worker when receipt could not reach the channel registry. Throws
 * when the registry is unreachable.
 */
export async function checkChannel(
  lookups: NotificationLookups,
  environmentId: string,
  providerConfigKey: string,
  n: { channelId: string; channelToken: string; messageNumber: number | null },
): Promise<ChannelCheck> {
  const check = await lookups.check({
    environmentId,
    channelId: n.channelId,
    token: n.channelToken,
    messageNumber: BigInt(n.messageNumber ?? 0),
  });
  const connectionId = check.providerConfigKey === providerConfigKey ? check.connectionId : "";
  return { known: check.known, tokenMatches: check.tokenMatches, connectionId };
}
