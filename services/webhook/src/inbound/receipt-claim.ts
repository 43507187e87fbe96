import { queues } from "@junction/bus";
import type { NotificationReceived } from "@junction/contracts/events/v1/events_pb";
import type { NotificationItem } from "@junction/providers";
import type { WebhookServiceContext } from "../context.ts";
import type { InlineClaims } from "../store/store.ts";

/**
 * The de-duplication claims receipt can make in the notification's own job transaction: where the
 * webhook store and the bus's queues are one SQLite file (the embedded default), the claim and the
 * job commit together or not at all, so a failed write leaves no claim behind (the upstream's resend
 * is then not lost as a duplicate), and the worker claims nothing again. Undefined elsewhere (MongoDB,
 * NATS, a file per service): receipt then only reads the key for its answer and the worker claims.
 */
export function receiptClaims(ctx: WebhookServiceContext): InlineClaims | undefined {
  const claims = ctx.store.inlineClaims;
  return claims && ctx.bus.acceptsCompanion?.(claims.database) ? claims : undefined;
}

/**
 * The claim of an item's key (the provider's dedupe key, else its channel id and message number) for
 * notification `id`, run inside the job's transaction: the key's owner, `id` when it is new. Null when
 * the item has no key (nothing to de-duplicate by).
 */
export function itemClaim(
  claims: InlineClaims,
  environmentId: string,
  providerConfigKey: string,
  item: NotificationItem,
  id: string,
  now: number,
): (() => string) | null {
  const { channelId, messageNumber, dedupeKey } = item;
  if (dedupeKey) return () => claims.dedupeKey(environmentId, providerConfigKey, dedupeKey, id, now);
  if (channelId === undefined || messageNumber === null) return null;
  return () => claims.notificationKey(environmentId, channelId, messageNumber, id, now);
}

/** A notification's job: its bytes, and the event they encode (`EnqueueOptions.decoded`). */
export interface InboundJob {
  data: Uint8Array;
  decoded: NotificationReceived;
}

/**
 * Records the notification's job with its claim in one transaction: the key's owner, `id` when the
 * job was recorded; another notification's id (nothing recorded) when the key was claimed before.
 */
export async function enqueueClaimed(
  ctx: WebhookServiceContext,
  job: InboundJob,
  claims: InlineClaims,
  claim: () => string,
  id: string,
): Promise<string> {
  let owner = id;
  const write = () => {
    owner = claim();
    return owner === id;
  };
  await ctx.bus.enqueue(queues.webhookInbound, job.data, {
    companion: { database: claims.database, write },
    decoded: job.decoded,
  });
  return owner;
}
