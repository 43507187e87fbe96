import { randomToken } from "@junction/platform";
import type { WebhookServiceContext } from "../context.ts";
import type { MessageRecord } from "../store/records.ts";
import { connectionTarget } from "./connection-target.ts";
import { leaseUntil } from "./deliver-round.ts";

/** What a new message is: everything but its delivery state. `createdAt`: when what it tells happened (Unix ms); 0 for now. */
export type NewMessage = Pick<
  MessageRecord,
  "id" | "environmentId" | "type" | "providerConfigKey" | "connectionId" | "notificationId" | "body" | "createdAt"
> &
  Partial<Pick<MessageRecord, "targetUrl">>;

/**
 * Stores a new message (idempotent on its id: storing it again changes nothing) and hands it to the
 * scheduler; resolves once it is stored, so a crash after that loses nothing (the scheduler finds
 * it again at start). A message due at once (the default schedule) is stored already claimed, so
 * its first round needs no claim write of its own. Both the delivery worker (messages of any type
 * from the delivery queue) and the inbound worker (forwards of its notifications) come through here.
 * A message of a connection with a webhook URL override is stored with it (connection-target.ts).
 */
export async function acceptMessage(ctx: WebhookServiceContext, fields: NewMessage): Promise<void> {
  const { targetUrl: given, ...rest } = fields;
  // Given (the match of a forward tells it; "" is none), or looked up for the message's connection.
  const targetUrl = given ?? (await connectionTarget(ctx, fields));
  const now = ctx.clock.now();
  const firstAt = now + (ctx.delivery.retryScheduleMs[0] ?? 0);
  const claim = firstAt <= now ? { leaseToken: randomToken(12), leaseUntil: leaseUntil(ctx, now) } : undefined;
  const message: MessageRecord = {
    ...rest,
    ...(targetUrl ? { targetUrl } : {}),
    status: "pending",
    attemptCount: 0,
    roundAttempts: 0,
    nextAttemptAt: firstAt,
    lastError: null,
    deliveredEndpointIds: [],
    leaseToken: claim?.leaseToken ?? null,
    leaseUntil: claim?.leaseUntil ?? null,
    createdAt: fields.createdAt > 0 ? fields.createdAt : now,
    updatedAt: now,
  };
  const inserted = await ctx.store.insertMessage(message);
  // Its rounds run later, from the scheduler: they are traced under the span that stored it.
  ctx.traces?.keep(message.id);
  if (inserted && claim) ctx.deliveries.scheduleClaimed(message);
  // Already stored (a job delivered again): scheduling it again is harmless, the claim decides.
  else ctx.deliveries.schedule(message.id, inserted ? firstAt : now);
}
