import { create, toBinary } from "@bufbuild/protobuf";
import { queues } from "@junction/bus";
import { DeliveryRequestedSchema } from "@junction/contracts/events/v1/events_pb";
import type { WebhookServiceContext } from "../context.ts";
import { newId } from "@junction/platform";
import { stableStringify } from "../inbound/forward-message.ts";
import type { EndpointRecord } from "../store/records.ts";

/** One endpoint's result in a round. */
export interface EndpointOutcome {
  endpointId: string;
  ok: boolean;
  error: string | null;
}

/**
 * Keeps each endpoint's health in the settings: `failingSince` is set at its first failure after a
 * success and cleared by its next success; an endpoint whose attempts have all failed for
 * `disableAfterMs` is disabled, with a log line and an `endpoint_disabled` message to the endpoints
 * still enabled (or a log line saying there is none). Writes only when something changes.
 */
export async function recordEndpointHealth(
  ctx: WebhookServiceContext,
  environmentId: string,
  endpoints: readonly EndpointRecord[],
  outcomes: readonly EndpointOutcome[],
  now: number,
): Promise<void> {
  const disableAfter = ctx.delivery.disableAfterMs;
  if (!healthChanges(endpoints, outcomes, disableAfter, now)) return;

  const disabled: EndpointRecord[] = [];
  const record = await ctx.settings.change(environmentId, (current) => {
    disabled.length = 0;
    const endpoints = current.endpoints.map((e) => {
      const outcome = outcomes.find((o) => o.endpointId === e.id);
      if (!outcome) return e;
      const next = healthAfter(e, outcome, disableAfter, now);
      if (e.enabled && !next.enabled) disabled.push(next);
      return next;
    });
    return { endpoints };
  });
  for (const endpoint of disabled) await announceDisabled(ctx, environmentId, endpoint, record.endpoints, now);
}

/** Whether any outcome changes its endpoint's health (so that the settings need a write). */
function healthChanges(
  endpoints: readonly EndpointRecord[],
  outcomes: readonly EndpointOutcome[],
  disableAfter: number,
  now: number,
): boolean {
  const byId = new Map(endpoints.map((e) => [e.id, e]));
  return outcomes.some((o) => {
    const e = byId.get(o.endpointId);
    if (!e) return false;
    if (o.ok) return e.failingSince !== undefined;
    return e.failingSince === undefined || (disableAfter > 0 && e.enabled && now - e.failingSince >= disableAfter);
  });
}

/** An endpoint after a round's outcome: healthy again, failing since now, or disabled for failing too long. */
function healthAfter(e: EndpointRecord, outcome: EndpointOutcome, disableAfter: number, now: number): EndpointRecord {
  if (outcome.ok) {
    const { failingSince: _healthy, ...rest } = e;
    return rest;
  }
  if (e.failingSince === undefined) return { ...e, failingSince: now };
  if (disableAfter > 0 && e.enabled && now - e.failingSince >= disableAfter) {
    const reason = `every attempt failed since ${new Date(e.failingSince).toISOString()} (last: ${outcome.error ?? "unknown error"})`;
    return { ...e, enabled: false, disabledReason: reason };
  }
  return e;
}

/**
 * Logs an endpoint's disabling and tells the endpoints still enabled with an `endpoint_disabled`
 * message (or logs that none is left).
 */
async function announceDisabled(
  ctx: WebhookServiceContext,
  environmentId: string,
  endpoint: EndpointRecord,
  endpoints: readonly EndpointRecord[],
  now: number,
): Promise<void> {
  ctx.counts.endpointsDisabled.inc();
  const log = ctx.logger.child({ environmentId, endpointId: endpoint.id, url: endpoint.url });
  log.warn(
    "webhook endpoint disabled after failing for too long; re-enable it with POST /webhook-settings/endpoints/{id}/enable",
    {
      reason: endpoint.disabledReason,
    },
  );
  const remaining = endpoints.filter((e) => e.enabled);
  if (remaining.length === 0) {
    log.warn("no enabled webhook endpoint is left to tell about the disabled one");
    return;
  }
  // The settings write above disabled it exactly once, so a fresh id cannot make a second notice.
  const messageId = newId("msg", now);
  const body = stableStringify({
    from: "junction",
    type: "endpoint_disabled",
    endpointId: endpoint.id,
    url: endpoint.url,
    failingSince: new Date(endpoint.failingSince as number).toISOString(),
    disabledAt: new Date(now).toISOString(),
    reason: endpoint.disabledReason,
  });
  const event = create(DeliveryRequestedSchema, {
    messageId,
    environmentId,
    type: "endpoint_disabled",
    body: new TextEncoder().encode(body),
    atMs: BigInt(now),
  });
  await ctx.bus.enqueue(queues.webhookDelivery, toBinary(DeliveryRequestedSchema, event), { msgId: messageId });
}
