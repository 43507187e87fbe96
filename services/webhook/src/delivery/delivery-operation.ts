import type { WebhookServiceContext } from "../context.ts";
import type { AttemptRecord, MessageRecord, RoundOutcome } from "../store/records.ts";

/**
 * Records one delivery round in the operations log: the message, the notification it came from, its
 * integration and connection, how the round ended, and each attempt (the endpoint, its status or error, the
 * latency). The recorder renders it (`deliveryRoundOperation` in the platform's operations): here only its facts
 * are gathered, so that with the log's writer thread the round costs the delivery's thread one short array.
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
  recorder.recordDeliveryRound({
    startedAtMs,
    environmentId: message.environmentId,
    integration: message.providerConfigKey,
    connection: message.connectionId,
    messageType: message.type,
    messageId: message.id,
    notificationId: message.notificationId,
    outcome: outcome.status,
    nextAttemptAt: outcome.nextAttemptAt,
    lastError: outcome.lastError,
    updatedAt: outcome.updatedAt,
    attempts,
  });
}
