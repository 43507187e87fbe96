import type { ServiceImpl } from "@connectrpc/connect";
import { DeliveryStatus, type WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { parseId, toItemError } from "@junction/platform";
import type { WebhookServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { recordReceipt } from "../inbound/notification-operation.ts";
import { receiveNotification } from "../inbound/receive-notification.ts";
import { fromDeliveryStatus, toMessage } from "../mappers.ts";

const DEFAULT_PAGE = 50;
const MAX_PAGE = 500;
/** Most notifications in one ReceiveNotifications call. */
const MAX_RECEIVE_BATCH = 1000;

/** ReceiveNotifications, the delivery log (ListMessages, GetMessage) and replays. */
export function messageHandlers(ctx: WebhookServiceContext): Partial<ServiceImpl<typeof WebhookService>> {
  return {
    // Each notification is recorded or refused on its own; a refused one carries its error in its
    // result.
    async receiveNotifications(req) {
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
    },

    async listMessages(req) {
      const environmentId = await ctx.environment();
      const limit = req.limit === 0 ? DEFAULT_PAGE : req.limit;
      if (limit < 1 || limit > MAX_PAGE) throw errors.invalidField("limit", `must be between 1 and ${MAX_PAGE}`);
      const status = fromDeliveryStatus(req.status);
      if (status === undefined && req.status !== DeliveryStatus.UNSPECIFIED) {
        throw errors.invalidField("status", "must be a known delivery status");
      }
      const beforeId = req.beforeId ? parseId("msg", req.beforeId, "before_id") : undefined;
      // One more than asked tells whether another page exists.
      const page = await ctx.store.listMessages(
        environmentId,
        {
          providerConfigKey: req.providerConfigKey || undefined,
          connectionId: req.connectionId || undefined,
          status,
          type: req.type || undefined,
          unmatchedOnly: req.unmatchedOnly,
        },
        limit + 1,
        beforeId,
      );
      const shown = page.slice(0, limit);
      return {
        messages: shown.map((m) => toMessage(m)),
        nextBeforeId: page.length > limit ? (shown[shown.length - 1]?.id ?? "") : "",
      };
    },

    async getMessage(req) {
      const id = parseId("msg", req.id);
      const environmentId = await ctx.environment();
      const message = await ctx.store.getMessage(environmentId, id);
      if (!message) throw errors.unknownMessage(id);
      return { message: toMessage(message, await ctx.store.listAttempts(id)) };
    },

    async replayMessage(req) {
      const id = parseId("msg", req.id);
      const environmentId = await ctx.environment();
      const now = ctx.clock.now();
      const message = await ctx.store.replayMessage(environmentId, id, now);
      if (!message) throw errors.unknownMessage(id);
      ctx.deliveries.schedule(id, now);
      ctx.logger.info("webhook message replayed", { messageId: id, type: message.type });
      return { message: toMessage(message) };
    },

    async replayFailed(req) {
      if (req.sinceMs < 0n) throw errors.invalidField("since_ms", "must not be negative");
      const environmentId = await ctx.environment();
      const now = ctx.clock.now();
      const ids = await ctx.store.replayFailed(environmentId, Number(req.sinceMs), now);
      for (const id of ids) ctx.deliveries.schedule(id, now);
      ctx.logger.info("failed webhook messages replayed", { count: ids.length, sinceMs: Number(req.sinceMs) });
      return { replayed: ids.length };
    },
  };
}
