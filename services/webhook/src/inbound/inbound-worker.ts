import { fromBinary, isMessage } from "@bufbuild/protobuf";
import { type Job, queues, type Subscription } from "@junction/bus";
import {
  NotificationLifecycle,
  NotificationMatch,
  type NotificationReceived,
  NotificationReceivedSchema,
} from "@junction/contracts/events/v1/events_pb";
import { Code, ConnectError } from "@connectrpc/connect";
import { ChannelLifecycleEvent } from "@junction/contracts/channel/v1/channel_service_pb";
import type { Logger } from "@junction/platform";
import { exponentialDelay } from "@junction/platform/retry";
import type { WebhookServiceContext } from "../context.ts";
import { forwardMatched, type Match } from "./forward-matched.ts";
import { catalogueHeaderNames, type NotificationFields, readNotification } from "./notification-headers.ts";
import { notificationsOf } from "./notification-event.ts";
import { BatchProgress } from "./batch-progress.ts";
import { checkChannel } from "./notification-lookups.ts";

/** The lifecycle notifications the channel service handles; "missed" is forwarded like a change. */
const CHANNEL_EVENT: Partial<Record<NotificationLifecycle, ChannelLifecycleEvent>> = {
  [NotificationLifecycle.REAUTHORIZATION_REQUIRED]: ChannelLifecycleEvent.REAUTHORIZATION_REQUIRED,
  [NotificationLifecycle.SUBSCRIPTION_REMOVED]: ChannelLifecycleEvent.REMOVED,
};

/** A job that failed (a service unreachable) is tried again after this, doubling up to a minute. */
const RETRY_BASE_MS = 1000;
const RETRY_MAX_MS = 60_000;
/**
 * A notification taken by a process that dies (a crash, a SIGKILL) is taken again after this: it
 * bounds how long a restart leaves the notifications in progress at the crash waiting (the crash
 * test expects them forwarded well within 30 s). Processing takes milliseconds; one outliving this
 * (a slow sink) is processed again alongside, which is harmless: messages have derived ids and
 * sinks are idempotent per notification id (notification-sink.ts).
 */
const ACK_WAIT_MS = 15_000;

/**
 * The inbound worker: takes recorded notifications from the inbound queue (a batch's job holds its
 * items, each processed as its own notification) and, for each, checks the
 * channel token when receipt could not, drops a duplicate (the one de-duplication decision: the
 * store's claim of its channel id and message number, or of its provider's dedupe key, unless receipt
 * made it with the job), hands a
 * channel lifecycle notification (reauthorization required, removed) to the channel service instead
 * of forwarding it, matches it (from what receipt read; by resource URI, by the email it names or by
 * its channel) to connections (spec: Webhook-to-connection matching), lets the sinks see it, and
 * stores one forward message per matched connection, or one without `connectionId` when nothing
 * matched, its payload the adapter's when it gave one. A job is acked only once every message is
 * stored; the message ids derive from the notification, so processing it again stores the same messages.
 */
export function startInboundWorker(ctx: WebhookServiceContext): Promise<Subscription> {
  const log = ctx.logger.child({ worker: "inbound" });
  const batches = new BatchProgress(() => ctx.clock.now());
  return ctx.bus.consume(
    queues.webhookInbound,
    async (job: Job) => {
      let notification: NotificationReceived;
      try {
        // Straight from receipt's enqueue in this process: the event its bytes encode, not decoded again.
        notification = isMessage(job.decoded, NotificationReceivedSchema)
          ? job.decoded
          : fromBinary(NotificationReceivedSchema, job.data);
      } catch (err) {
        log.error("undecodable notification job dropped", { error: err });
        await job.term();
        return;
      }
      try {
        // A batch's items (one job): each processed as its own notification, the job acked once all are.
        const notifications = notificationsOf(notification);
        await batches.run(
          notifications,
          (n) => processNotification(ctx, n),
          () => job.ack(),
        );
        const now = ctx.clock.now();
        for (const n of notifications) ctx.limits.pending.processed(n.environmentId, n.providerConfigKey, now);
      } catch (err) {
        const delay = exponentialDelay(job.deliveryCount - 1, RETRY_BASE_MS, RETRY_MAX_MS);
        log.warn("notification not processed; it will be tried again", {
          notificationId: notification.id,
          attempt: job.deliveryCount,
          retryInMs: delay,
          error: err,
        });
        await job.nak(delay);
      }
    },
    { concurrency: ctx.delivery.inboundConcurrency, ackWaitMs: ACK_WAIT_MS },
  );
}

/** Everything that happens to one notification after receipt. Throws only for transient failures. */
export async function processNotification(ctx: WebhookServiceContext, n: NotificationReceived): Promise<void> {
  // Made only when a line is written: the usual notification logs at debug level only.
  const log = () => ctx.logger.child({ notificationId: n.id, providerConfigKey: n.providerConfigKey });
  const counts = ctx.counts.notifications;
  const read = fieldsOf(n);
  const { channelId, messageNumber } = read;
  const drop = (message: string, fields?: Record<string, unknown>) => {
    counts.inc(n.providerConfigKey, "dropped");
    log().warn(message, fields);
  };

  // The channel check receipt could not make (the registry did not answer then), and the channel's
  // connection of a channel-matched notification receipt did not learn (see channelConnection).
  let connectionId = n.connectionId;
  if (
    channelId !== undefined &&
    (!n.channelChecked || (n.match === NotificationMatch.CHANNEL && connectionId === ""))
  ) {
    const check = await checkChannel(ctx.lookups, n.environmentId, n.providerConfigKey, { ...read, channelId });
    if (!check.tokenMatches)
      return drop("notification dropped: its channel token does not match the channel's", { channelId });
    if (n.strictChannels && !check.known) {
      return drop("notification dropped: strict integration, channel unknown to the registry", { channelId });
    }
    connectionId = check.connectionId;
  }

  // The one de-duplication decision: made by receipt in the job's own transaction (`claimed`, where the
  // store and the bus share a file), else here. Receipt must not claim apart from the job: a claim left
  // behind when recording fails would make the upstream's resend a duplicate, lost.
  const owner = n.claimed ? n.id : await claimKey(ctx, n, read);
  if (owner !== n.id) {
    counts.inc(n.providerConfigKey, "duplicate");
    log().info("duplicate notification not forwarded", {
      channelId,
      messageNumber,
      dedupeKey: n.dedupeKey,
      firstNotificationId: owner,
    });
    return;
  }

  const lifecycle = CHANNEL_EVENT[n.lifecycle];
  if (lifecycle !== undefined) return handleLifecycle(ctx, n, channelId, lifecycle, log);

  const match = await matchOf(ctx, n, read.resourceUri, connectionId, log);
  if (match === "integration_gone") return drop("notification dropped: its integration no longer exists");
  if (!match) {
    counts.inc(n.providerConfigKey, "dropped");
    return;
  }
  counts.inc(n.providerConfigKey, match.connectionIds.length > 0 ? "matched" : "unmatched");
  await forwardMatched(ctx, n, match, { channelId, messageNumber }, log);
}

/**
 * A notification about its channel rather than a change: the channel service acts (renews,
 * recreates, tells the customer). Not matched, so the integration's still existing is asked here.
 * A failure naks the job.
 */
async function handleLifecycle(
  ctx: WebhookServiceContext,
  n: NotificationReceived,
  channelId: string | undefined,
  event: ChannelLifecycleEvent,
  log: () => Logger,
): Promise<void> {
  const counts = ctx.counts.notifications;
  if (channelId === undefined || !(await ctx.integrations.webhookUrl(n.providerConfigKey))) {
    counts.inc(n.providerConfigKey, "dropped");
    log().warn("lifecycle notification dropped: it names no channel, or its integration no longer exists", {
      lifecycle: n.lifecycle,
    });
    return;
  }
  const res = await ctx.channels.handleChannelLifecycle({
    environmentId: n.environmentId,
    providerConfigKey: n.providerConfigKey,
    channelId,
    event,
    notificationId: n.id,
  });
  log().info("channel lifecycle notification handled", { channelId, lifecycle: n.lifecycle, action: res.action });
}

/** The de-duplication claim: by the provider's key, else by channel id and message number; its owner, or n.id. */
async function claimKey(
  ctx: WebhookServiceContext,
  n: NotificationReceived,
  read: NotificationFields,
): Promise<string> {
  const now = ctx.clock.now();
  if (n.dedupeKey !== "") return ctx.store.claimDedupeKey(n.environmentId, n.providerConfigKey, n.dedupeKey, n.id, now);
  if (read.channelId === undefined || read.messageNumber === null) return n.id;
  return ctx.store.claimNotificationKey(n.environmentId, read.channelId, read.messageNumber, n.id, now);
}

/**
 * The connections a notification is for, by its match mode: its resource URI (rules 1–2), an email
 * it names (rule 2's tiers), or its channel's connection (the registry's connection that created it,
 * of the same integration, carried from the channel check). One MatchNotifications call, which also
 * says the integration as it is now; "integration_gone" when it no longer exists (deleted since
 * receipt: not forwarded). Null when it must not be forwarded at all: a notification matched by channel
 * whose channel the registry does not hold for this integration could not have its channel's secret
 * (`clientState`) checked, so it is dropped and logged, never forwarded unmatched.
 */
async function matchOf(
  ctx: WebhookServiceContext,
  n: NotificationReceived,
  resourceUri: string,
  connectionId: string,
  log: () => Logger,
): Promise<Match | "integration_gone" | null> {
  const providerConfigKey = n.providerConfigKey;
  let request: { providerConfigKey: string; email?: string; resourceUri?: string; connectionId?: string };
  if (n.match === NotificationMatch.EMAIL) request = { providerConfigKey, email: n.matchEmail };
  else if (n.match !== NotificationMatch.CHANNEL) request = { providerConfigKey, resourceUri };
  else if (connectionId !== "") request = { providerConfigKey, connectionId };
  else {
    log().warn("notification dropped: its channel is unknown to the registry (or of another integration)", {
      channelId: n.channelId,
    });
    return null;
  }
  try {
    return await ctx.lookups.match(request);
  } catch (err) {
    if (ConnectError.from(err).code === Code.NotFound) return "integration_gone";
    throw err;
  }
}

/**
 * What receipt read from the headers. A notification recorded by a version whose receipt did not
 * carry them (`headersRead` false, possibly still queued across an upgrade) is read once here with
 * the catalogue's header names: the upgrade line.
 */
function fieldsOf(n: NotificationReceived): NotificationFields {
  if (!n.headersRead) return readNotification(n.headers, catalogueHeaderNames());
  return {
    channelId: n.channelId === "" ? undefined : n.channelId,
    messageNumber: n.messageNumber === undefined ? null : Number(n.messageNumber),
    resourceUri: n.resourceUri,
    channelToken: n.channelToken,
  };
}
