import type { ChannelTokens } from "./channel-tokens.ts";
import { fromBinary } from "@bufbuild/protobuf";
import { type Bus, type Subscription, subjects } from "@junction/bus";
import { ChannelCall, type ChannelObserved, ChannelObservedSchema } from "@junction/contracts/events/v1/events_pb";
import type { Clock, Logger } from "@junction/platform";
import { webhookHeaderNames } from "@junction/providers";
import type { ChannelStore } from "./store/store.ts";

/** Processes of the channel service share the events: each is applied by one of them. */
const QUEUE_GROUP = "channel-registry";

/** Header names of a notification, preferred first: the spec's, then the providers' (spec: Inbound webhook endpoint). */
const CHANNEL_ID_HEADERS = ["x-provider-channel-id", ...webhookHeaderNames("channelId")];
const MESSAGE_NUMBER_HEADERS = ["x-provider-message-number", ...webhookHeaderNames("messageNumber")];

/**
 * Feeds the registry from the watch, renewal and stop calls the proxy observed: a watch that returned
 * a 2xx records the channel, a renewal that returned a 2xx extends it, a stop that returned 2xx or
 * 404 stops it (spec: Notification channel lifecycle).
 */
export function observeChannels(
  bus: Bus,
  store: ChannelStore,
  clock: Clock,
  logger: Logger,
  tokens: ChannelTokens,
): Promise<Subscription> {
  const log = logger.child({ component: "channel-observer" });
  return bus.subscribe(
    subjects.channelObserved(),
    async (msg) => {
      let event: ChannelObserved;
      try {
        event = fromBinary(ChannelObservedSchema, msg.data);
      } catch (err) {
        log.warn("undecodable channel event dropped", { subject: msg.subject, error: err });
        return;
      }
      try {
        await applyChannelObserved(store, event, clock.now(), log, tokens);
      } catch (err) {
        log.error("channel event not recorded", {
          channelId: event.channelId,
          call: ChannelCall[event.call],
          error: err,
        });
      }
    },
    { queueGroup: QUEUE_GROUP },
  );
}

/** Applies one observed call to the registry. `now` stands in for an event without a time. */
export async function applyChannelObserved(
  store: ChannelStore,
  event: ChannelObserved,
  now: number,
  logger: Logger,
  tokens: ChannelTokens,
): Promise<void> {
  const at = event.atMs > 0n ? Number(event.atMs) : now;
  const fields = { environmentId: event.environmentId, channelId: event.channelId, status: event.status };
  if (!event.environmentId || !event.channelId) {
    logger.warn("channel event without environment or channel id ignored", fields);
    return;
  }
  if (event.call === ChannelCall.WATCH) {
    // Any 2xx: the spec's calendar watch answers 200, a Graph subscription 201 Created.
    if (event.status < 200 || event.status > 299) return;
    const { applied } = await store.recordWatch({
      environmentId: event.environmentId,
      channelId: event.channelId,
      resourceId: event.resourceId,
      providerConfigKey: event.providerConfigKey,
      connectionId: event.connectionId,
      resourceUri: event.resourceUri,
      expiration: event.expirationMs > 0n ? Number(event.expirationMs) : null,
      ...tokens.seal(event.environmentId, event.channelId, event.token),
      at,
    });
    logger.info(applied ? "channel watch recorded" : "late channel watch ignored", fields);
    return;
  }
  if (event.call === ChannelCall.STOP) {
    // A 404 is the upstream saying it no longer knows the channel (stopped or expired already): it
    // sends nothing more on it, so the registry must not keep it active (see upstream-stop.ts).
    const gone = event.status === 404;
    if (!gone && (event.status < 200 || event.status > 299)) return;
    const stopped = await store.recordStop(event.environmentId, event.channelId, event.resourceId, at);
    // A stop naming another resource id, or an unknown channel, changes nothing (spec: lifecycle, "Valid pair").
    if (!stopped) logger.info("channel stop matched no active channel", fields);
    else logger.info(gone ? "channel gone upstream, recorded as stopped" : "channel stop recorded", fields);
    return;
  }
  if (event.call === ChannelCall.RENEW) {
    // A renewal in place (Graph's PATCH answers 200 with the subscription): the new expiration is
    // the answer's. A failed one leaves the channel as it was.
    if (event.status < 200 || event.status > 299) return;
    if (event.expirationMs <= 0n) {
      logger.warn("channel renewal without an expiration ignored", fields);
      return;
    }
    const renewed = await store.recordRenewal(event.environmentId, event.channelId, Number(event.expirationMs), at);
    logger.info(renewed ? "channel renewal recorded" : "channel renewal matched no active channel", fields);
    return;
  }
  logger.warn("channel event of unknown call ignored", fields);
}

/**
 * Records the message number of an upstream notification, given its headers with lower-cased
 * names. Returns false, changing nothing, when the headers name no channel or message number or the
 * channel is not in the registry (a channel created outside Junction's proxy, say).
 */
export async function applyNotification(
  store: ChannelStore,
  environmentId: string,
  headers: Readonly<Record<string, string | undefined>>,
  at: number = Date.now(),
): Promise<boolean> {
  const channelId = firstHeader(headers, CHANNEL_ID_HEADERS);
  const rawNumber = firstHeader(headers, MESSAGE_NUMBER_HEADERS);
  if (!channelId || !rawNumber || !/^\d{1,15}$/.test(rawNumber)) return false;
  return (await store.recordNotification(environmentId, channelId, Number(rawNumber), at)) !== null;
}

function firstHeader(
  headers: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): string | undefined {
  for (const name of names) {
    const value = headers[name]?.trim();
    if (value) return value;
  }
  return undefined;
}
