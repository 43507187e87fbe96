import type { ReplayFailedRequest, ReplayMessageRequest } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { parseId } from "@junction/platform";
import type { WebhookServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { toMessage } from "../../mappers.ts";

/** ReplayMessage: the message delivered again to every endpoint, from now. */
export async function replayMessage(ctx: WebhookServiceContext, req: ReplayMessageRequest) {
  const id = parseId("msg", req.id);
  const environmentId = await ctx.environment();
  const now = ctx.clock.now();
  const message = await ctx.store.replayMessage(environmentId, id, now);
  if (!message) throw errors.unknownMessage(id);
  ctx.deliveries.schedule(id, now);
  ctx.logger.info("webhook message replayed", { messageId: id, type: message.type });
  return { message: toMessage(message) };
}

/** ReplayFailed: every failed or exhausted message created since `sinceMs`, delivered again. */
export async function replayFailed(ctx: WebhookServiceContext, req: ReplayFailedRequest) {
  if (req.sinceMs < 0n) throw errors.invalidField("since_ms", "must not be negative");
  const environmentId = await ctx.environment();
  const now = ctx.clock.now();
  const ids = await ctx.store.replayFailed(environmentId, Number(req.sinceMs), now);
  for (const id of ids) ctx.deliveries.schedule(id, now);
  ctx.logger.info("failed webhook messages replayed", { count: ids.length, sinceMs: Number(req.sinceMs) });
  return { replayed: ids.length };
}
