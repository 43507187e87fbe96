import { create, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { queues } from "@junction/bus";
import { NotificationReceivedSchema } from "@junction/contracts/events/v1/events_pb";
import type {
  ReceiveNotificationRequest,
  ReceiveNotificationResponseSchema,
} from "@junction/contracts/webhook/v1/webhook_service_pb";
import { newId } from "@junction/platform";
import { MAX_NOTIFICATION_BODY_BYTES, providerAdapter } from "@junction/providers";
import type { NotificationItem, NotificationReading } from "@junction/providers";
import type { WebhookServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { CREDENTIAL_HEADERS, headerProblem } from "./notification-headers.ts";
import { channelTokenMatches } from "./notification-lookups.ts";

type ReceiveResult = MessageInitShape<typeof ReceiveNotificationResponseSchema>;

/**
 * One notification of ReceiveNotifications (spec: Inbound webhook endpoint): checks that the webhook URL names a known
 * integration, answers a notification already recorded (same channel id and message number) as a
 * duplicate, drops one whose channel token does not match, refuses a body above the provider's limit
 * (its adapter's), and otherwise records it durably on the inbound queue, body, content type and query
 * included, with what the provider adapter's `read` found in it (so the worker reads none again).
 * Matching and forwarding happen after the answer, in the inbound worker. A handshake the adapter
 * answers is refused as an invalid notification (no provider here needs one yet; the gateway does not
 * send such answers back), and so is a batch of other than one notification.
 */
export async function receiveNotification(
  ctx: WebhookServiceContext,
  req: ReceiveNotificationRequest,
): Promise<ReceiveResult> {
  const environmentId = await ctx.environment();
  if (req.environmentId !== environmentId) throw errors.unknownWebhookUrl();
  const problem = headerProblem(req.headers);
  if (problem) throw errors.invalidNotification(problem);
  const found = await ctx.integrations.get(req.providerConfigKey);
  if (!found) throw errors.unknownWebhookUrl();
  const bodyLimit =
    providerAdapter(found.integration.provider)?.notifications?.bodyLimitBytes ?? MAX_NOTIFICATION_BODY_BYTES;
  if (req.body.byteLength > bodyLimit) throw errors.notificationTooLarge(bodyLimit);

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (!CREDENTIAL_HEADERS.has(name)) headers[name] = value;
  const reading = found.read(
    { headers, body: req.body, query: req.query, contentType: req.contentType },
    { settings: found.settings, now: ctx.clock.now(), fetch: globalThis.fetch },
  );
  // Most readers answer at once: no await (and no microtask) for them.
  const item = singleNotification(reading instanceof Promise ? await reading : reading);
  const read = { channelId: item.channelId, messageNumber: item.messageNumber, channelToken: item.token };
  const { channelId, messageNumber } = read;
  // Made only when a line is written: the usual notification logs nothing here.
  const log = () => ctx.logger.child({ providerConfigKey: req.providerConfigKey, channelId, messageNumber });

  if (channelId !== undefined && messageNumber !== null) {
    const owner = await ctx.store.findNotificationKey(environmentId, channelId, messageNumber);
    if (owner) {
      log().info("duplicate notification not recorded again", { notificationId: owner });
      return { notificationId: owner, duplicate: true };
    }
  }

  let channelChecked = channelId === undefined;
  if (channelId !== undefined) {
    try {
      if (!(await channelTokenMatches(ctx.lookups, environmentId, { ...read, channelId }))) {
        log().warn("notification dropped: its channel token does not match the channel's");
        return { dropped: true };
      }
      channelChecked = true;
    } catch (err) {
      // Receipt must not depend on the registry: record it, and the worker checks the token later.
      log().warn("channel registry unavailable at receipt; the token is checked before forwarding", { error: err });
    }
  }

  const now = ctx.clock.now();
  const id = newId("ntf", now);
  const event = create(NotificationReceivedSchema, {
    id,
    environmentId,
    providerConfigKey: req.providerConfigKey,
    headers,
    receivedAtMs: BigInt(now),
    channelChecked,
    body: req.body,
    contentType: req.contentType,
    query: req.query,
    headersRead: true,
    channelId: channelId ?? "",
    messageNumber: messageNumber === null ? undefined : BigInt(messageNumber),
    resourceUri: item.resourceUri,
    // Kept only for the worker's check: a checked token is not recorded twice.
    channelToken: channelChecked ? "" : read.channelToken,
  });
  // No msgId: the id is new, so the bus's msgId de-duplication could never apply (and it costs a
  // write per notification); an upstream's resend is a new receipt, de-duplicated by channel id and
  // message number.
  await ctx.bus.enqueue(queues.webhookInbound, toBinary(NotificationReceivedSchema, event));
  ctx.logger.debug("notification recorded", {
    providerConfigKey: req.providerConfigKey,
    channelId,
    messageNumber,
    notificationId: id,
    bodyLength: req.body.byteLength,
  });
  return { notificationId: id };
}

/**
 * The one notification an adapter read; its refusal, a handshake (not answered here yet: no provider
 * needs one) or a batch of other than one notification is thrown as the error to answer.
 */
export function singleNotification(reading: NotificationReading): NotificationItem {
  if (reading.kind === "refused") throw errors.notificationRefused(reading.status, reading.code, reading.message);
  if (reading.kind === "handshake") throw errors.invalidNotification("is a provider handshake, not answered here");
  const [item, ...more] = reading.items;
  if (!item || more.length > 0) {
    throw errors.invalidNotification(`carries ${reading.items.length} notifications; exactly one is accepted`);
  }
  return item;
}
