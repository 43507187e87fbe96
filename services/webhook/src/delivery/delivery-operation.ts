import type { OperationMessage } from "@junction/platform/operations/operation";
import type { WebhookServiceContext } from "../context.ts";
import type { AttemptRecord, MessageRecord, RoundOutcome } from "../store/records.ts";

/** An endpoint's URL as the log shows it: without its query, which may carry a token. */
function shownUrl(url: string): string {
  const at = url.indexOf("?");
  return at < 0 ? url : `${url.slice(0, at)}?…`;
}

/**
 * The notification a message came from, in its round's title (searched by `q`): a successful receipt is a
 * per-minute total, so the delivery round is the row that answers what happened to one notification.
 */
function from(message: MessageRecord): string {
  return message.notificationId ? ` of ${message.notificationId}` : "";
}

/**
 * Records one delivery round in the operations log: the message, the notification it came from, its
 * integration and connection, how the round ended, and a message per attempt (the endpoint, its status or error, the latency).
 */
export function recordDeliveryRound(
  ctx: WebhookServiceContext,
  message: MessageRecord,
  attempts: AttemptRecord[],
  outcome: RoundOutcome,
  startedAtMs: number,
): void {
  const recorder = ctx.operations;
  if (!recorder?.enabled) return;
  const status = outcome.status === "succeeded" ? "success" : outcome.status === "pending" ? "running" : "failed";
  const messages: OperationMessage[] = [];
  for (const a of attempts) {
    messages.push({
      atMs: a.at,
      level: a.error === null ? "info" : "warn",
      text: `attempt ${a.number} to ${shownUrl(a.url)}: ${a.error ?? `answered ${a.statusCode}`}`,
      fields: { messageId: message.id, endpointId: a.endpointId, statusCode: a.statusCode, latencyMs: a.latencyMs },
    });
  }
  if (outcome.nextAttemptAt !== null) {
    messages.push({
      atMs: outcome.updatedAt,
      level: "info",
      text: `next attempt at ${new Date(outcome.nextAttemptAt).toISOString()}`,
    });
  }
  if (outcome.lastError && attempts.length === 0) {
    messages.push({ atMs: outcome.updatedAt, level: "warn", text: outcome.lastError });
  }
  recorder.record({
    kind: "webhook_delivery",
    status,
    startedAtMs,
    environmentId: message.environmentId,
    integration: message.providerConfigKey,
    connection: message.connectionId,
    title: `${message.type} message ${message.id}${from(message)}: ${outcome.status}`,
    messages,
  });
}
