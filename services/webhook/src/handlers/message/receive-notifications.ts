import type { ReceiveNotificationsRequest } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { toItemError } from "@junction/platform";
import type { WebhookServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { recordReceipt } from "../../inbound/notification-operation.ts";
import { receiveNotification } from "../../inbound/receive-notification.ts";

/** Most notifications in one ReceiveNotifications call. */
const MAX_RECEIVE_BATCH = 1000;

/**
 * ReceiveNotifications: each notification is recorded or refused on its own; a refused one carries
 * its error in its result.
 */
export async function receiveNotifications(ctx: WebhookServiceContext, req: ReceiveNotificationsRequest) {
  if (req.requests.length > MAX_RECEIVE_BATCH) {
    throw errors.invalidField("requests", `must hold at most ${MAX_RECEIVE_BATCH} notifications`);
  }
  const settled = await Promise.allSettled(
    req.requests.map((r) => recordReceipt(ctx.operations, ctx.clock, r, receiveNotification(ctx, r))),
  );
  return {
    results: settled.map((s) =>
      s.status === "fulfilled"
        ? { outcome: { case: "response" as const, value: s.value } }
        : { outcome: { case: "error" as const, value: toItemError(s.reason, ctx.logger, "ReceiveNotifications") } },
    ),
  };
}
