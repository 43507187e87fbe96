import {
  DeliveryStatus,
  type GetMessageRequest,
  type ListMessagesRequest,
} from "@junction/contracts/webhook/v1/webhook_service_pb";
import { parseId } from "@junction/platform";
import type { WebhookServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { fromDeliveryStatus, toMessage } from "../../mappers.ts";

const DEFAULT_PAGE = 50;
const MAX_PAGE = 500;

/** ListMessages: the delivery log, newest first, a page at a time, filtered as asked. */
export async function listMessages(ctx: WebhookServiceContext, req: ListMessagesRequest) {
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
}

/** GetMessage: one message with its attempts. */
export async function getMessage(ctx: WebhookServiceContext, req: GetMessageRequest) {
  const id = parseId("msg", req.id);
  const environmentId = await ctx.environment();
  const message = await ctx.store.getMessage(environmentId, id);
  if (!message) throw errors.unknownMessage(id);
  return { message: toMessage(message, await ctx.store.listAttempts(id)) };
}
