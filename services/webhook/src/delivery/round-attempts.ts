import { newId } from "@junction/platform";
import type { WebhookServiceContext } from "../context.ts";
import { signatureHeaders } from "../signing.ts";
import type { AttemptRecord, EndpointRecord, MessageRecord, WebhookSettingsRecord } from "../store/records.ts";
import { OVERRIDE_ENDPOINT_ID } from "./connection-target.ts";
import type { RoundDeps } from "./deliver-round.ts";
import { recordEndpointHealth } from "./endpoint-health.ts";
import type { SendResult } from "./http-sender.ts";

/** An endpoint a round posts to: one of the settings', or a connection's override. */
export type RoundTarget = Pick<EndpointRecord, "id" | "url" | "enabled" | "createdAt">;

/** The enabled endpoints that have not had the message yet in this run. */
export function roundTargets(
  message: MessageRecord,
  endpoints: readonly RoundTarget[],
  delivered: Set<string>,
): RoundTarget[] {
  // A connection's webhook URL override replaces the endpoints for its messages (Nango's behaviour).
  const candidates = message.targetUrl
    ? [{ id: OVERRIDE_ENDPOINT_ID, url: message.targetUrl, enabled: true, createdAt: message.createdAt }]
    : endpoints;
  return candidates.filter((e) => e.enabled && !delivered.has(e.id));
}

/** Posts the message, signed, to every target at once; the results in the targets' order. */
export function postToTargets(
  deps: RoundDeps,
  message: MessageRecord,
  settings: WebhookSettingsRecord,
  targets: RoundTarget[],
  now: number,
): Promise<SendResult[]> {
  const timestamp = Math.floor(now / 1000);
  const headers = {
    ...signatureHeaders(deps.keys.secrets(settings, now), message.id, timestamp, message.body),
    "content-type": "application/json",
    "user-agent": "Junction-Webhooks/1",
  };
  const timeoutMs = deps.ctx.delivery.attemptTimeoutMs;
  return Promise.all(targets.map((e) => deps.send({ url: e.url, headers, body: message.body, timeoutMs })));
}

/** The round's attempts, counted; adds each target that took the message to `delivered`. */
export function attemptRecords(
  ctx: WebhookServiceContext,
  message: MessageRecord,
  targets: RoundTarget[],
  results: SendResult[],
  delivered: Set<string>,
  now: number,
): AttemptRecord[] {
  const number = message.attemptCount + 1;
  return results.map((r, i) => {
    const endpoint = targets[i] as RoundTarget;
    if (r.error === null) delivered.add(endpoint.id);
    ctx.counts.attempts.inc(r.error === null ? "ok" : "failed");
    ctx.counts.attemptSeconds.observe(r.latencyMs / 1000);
    return {
      id: newId("att", now),
      messageId: message.id,
      endpointId: endpoint.id,
      url: endpoint.url,
      statusCode: r.statusCode,
      latencyMs: r.latencyMs,
      responseSnippet: r.responseSnippet,
      error: r.error,
      at: now,
      number,
    };
  });
}

/** Records each target endpoint's health after the round; a failure to record is logged, not thrown. */
export function recordTargetHealth(
  ctx: WebhookServiceContext,
  message: MessageRecord,
  endpoints: readonly EndpointRecord[],
  targets: RoundTarget[],
  results: SendResult[],
  now: number,
): Promise<void> {
  const outcomes = targets.map((e, i) => ({
    endpointId: e.id,
    ok: results[i]?.error === null,
    error: results[i]?.error ?? null,
  }));
  return recordEndpointHealth(ctx, message.environmentId, endpoints, outcomes, now).catch((err: unknown) =>
    ctx.logger.error("endpoint health not recorded", { messageId: message.id, error: err }),
  );
}
