import { fromBinary } from "@bufbuild/protobuf";
import { type Job, queues, type Subscription } from "@junction/bus";
import { type NotificationReceived, NotificationReceivedSchema } from "@junction/contracts/events/v1/events_pb";
import { MatchRule } from "@junction/contracts/connection/v1/connection_service_pb";
import { exponentialDelay } from "@junction/platform/retry";
import type { WebhookServiceContext } from "../context.ts";
import { acceptMessage } from "../delivery/accept-message.ts";
import { derivedMessageId, forwardBody } from "./forward-message.ts";
import { type NotificationFields, readNotification } from "./notification-headers.ts";
import type { IntegrationView } from "./integration-lookup.ts";
import { channelTokenMatches } from "./notification-lookups.ts";

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
 * The inbound worker: takes recorded notifications from the inbound queue and, for each, drops a
 * duplicate (same channel id and message number, remembered in the store), checks the channel
 * token when receipt could not, matches it (all from what receipt read from the headers) to connections (spec: Webhook-to-connection matching),
 * lets the sinks see it, and stores one forward message per matched connection, or one without
 * `connectionId` when nothing matched. A job is acked only once every message is stored; the
 * message ids derive from the notification, so processing it again stores the same messages.
 */
export function startInboundWorker(ctx: WebhookServiceContext): Promise<Subscription> {
  const log = ctx.logger.child({ worker: "inbound" });
  return ctx.bus.consume(
    queues.webhookInbound,
    async (job: Job) => {
      let notification: NotificationReceived;
      try {
        notification = fromBinary(NotificationReceivedSchema, job.data);
      } catch (err) {
        log.error("undecodable notification job dropped", { error: err });
        await job.term();
        return;
      }
      try {
        await processNotification(ctx, notification);
        await job.ack();
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
  const found = await ctx.integrations.get(n.providerConfigKey);
  if (!found) {
    log().warn("notification dropped: its integration no longer exists");
    return;
  }
  const headers = n.headers;
  const read = fieldsOf(n, found);
  const { channelId, messageNumber } = read;

  if (!n.channelChecked && channelId !== undefined) {
    if (!(await channelTokenMatches(ctx.lookups, n.environmentId, { ...read, channelId }))) {
      log().warn("notification dropped: its channel token does not match the channel's", { channelId });
      return;
    }
  }

  if (channelId !== undefined && messageNumber !== null) {
    const now = ctx.clock.now();
    const owner = await ctx.store.claimNotificationKey(n.environmentId, channelId, messageNumber, n.id, now);
    if (owner !== n.id) {
      log().info("duplicate notification not forwarded", { channelId, messageNumber, firstNotificationId: owner });
      return;
    }
  }

  const match = await ctx.lookups.match({ providerConfigKey: n.providerConfigKey, resourceUri: read.resourceUri });
  const provider = found.integration.provider;
  const handled = new Set<string>();
  for (const sink of ctx.sinks ?? []) {
    const result = await sink.onNotification({
      notificationId: n.id,
      environmentId: n.environmentId,
      providerConfigKey: n.providerConfigKey,
      provider,
      headers,
      connectionIds: match.connectionIds,
      rule: match.rule,
      receivedAt: Number(n.receivedAtMs),
      body: n.body,
      contentType: n.contentType,
      query: n.query,
    });
    for (const id of result?.handledConnectionIds ?? []) handled.add(id);
  }

  const fields = { rule: MatchRule[match.rule], connections: match.connectionIds.length, channelId, messageNumber };
  if (!found.integration.forwardWebhooks) {
    log().info("notification matched; forwarding is off for this integration", fields);
    return;
  }
  // spec: matching rules 3–4: once per matching connection, once without connectionId when none.
  const targets = match.connectionIds.length > 0 ? match.connectionIds.filter((id) => !handled.has(id)) : [""];
  // Stored here, not sent through the delivery queue: this service owns the message store, and the
  // store is as durable as the queue (the job is acked only once every message is stored).
  await Promise.all(
    targets.map((connectionId) =>
      acceptMessage(ctx, {
        id: derivedMessageId(n.id, connectionId),
        environmentId: n.environmentId,
        type: "forward",
        providerConfigKey: n.providerConfigKey,
        connectionId,
        notificationId: n.id,
        // Known from the match: "" is none (no lookup per message).
        targetUrl: match.webhookUrlOverrides[connectionId] ?? "",
        body: forwardBody({ from: provider, providerConfigKey: n.providerConfigKey, payload: headers, connectionId }),
        createdAt: Number(n.receivedAtMs),
      }),
    ),
  );
  ctx.logger.debug("notification matched and forwarded", {
    notificationId: n.id,
    providerConfigKey: n.providerConfigKey,
    ...fields,
    messages: targets.length,
  });
}

/** What receipt read from the headers; read here only for a notification recorded before receipt carried it. */
function fieldsOf(n: NotificationReceived, found: IntegrationView): NotificationFields {
  if (!n.headersRead) return readNotification(n.headers, found.headerNames);
  return {
    channelId: n.channelId === "" ? undefined : n.channelId,
    messageNumber: n.messageNumber === undefined ? null : Number(n.messageNumber),
    resourceUri: n.resourceUri,
    channelToken: n.channelToken,
  };
}
