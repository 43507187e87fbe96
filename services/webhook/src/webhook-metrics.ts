import { type Counter, type Histogram, MetricsRegistry } from "@junction/platform";
import type { WebhookServiceStore } from "./store/store.ts";

/** What the webhook service counts: notifications by outcome, delivery rounds and attempts, endpoints disabled. */
export interface WebhookMetrics {
  /** By integration and outcome: received, refused, dropped, duplicate, matched, unmatched, forwarded. */
  notifications: Counter;
  /** Delivery rounds by outcome: succeeded, failed (retried later), exhausted. */
  deliveries: Counter;
  /** Attempts (one per endpoint per round) by outcome: ok, failed. */
  attempts: Counter;
  /** Time of one attempt, until the endpoint's answer or the timeout. */
  attemptSeconds: Histogram;
  endpointsDisabled: Counter;
}

/** Registers the webhook service's metrics, and the queue gauges read from `store` at each scrape. */
export function webhookMetrics(
  registry: MetricsRegistry | undefined,
  store: WebhookServiceStore,
  now: () => number,
): WebhookMetrics {
  const r = registry ?? new MetricsRegistry();
  const pending = r.gauge(
    "junction_delivery_pending",
    "Webhook messages pending or failed (to be retried), counted up to 10000.",
  );
  const overdue = r.gauge(
    "junction_delivery_oldest_due_age_seconds",
    "How long the most overdue pending message has been due (0 when none is late).",
  );
  r.onCollect(async () => {
    const deliverable = await store.listDeliverable(10_000);
    pending.set(deliverable.length);
    const earliest = deliverable[0]?.nextAttemptAt;
    overdue.set(earliest === undefined ? 0 : Math.max(0, (now() - earliest) / 1000));
  });
  return {
    notifications: r.counter(
      "junction_notifications_total",
      "Inbound notifications by integration and outcome (received, refused, dropped, duplicate, matched, unmatched, forwarded: its messages stored for delivery).",
      ["integration", "outcome"],
    ),
    deliveries: r.counter(
      "junction_delivery_rounds_total",
      "Webhook delivery rounds by outcome (succeeded, failed: retried later, exhausted).",
      ["outcome"],
    ),
    attempts: r.counter(
      "junction_delivery_attempts_total",
      "Webhook delivery attempts (one per endpoint per round) by outcome.",
      ["outcome"],
    ),
    attemptSeconds: r.histogram("junction_delivery_attempt_seconds", "Time of one webhook delivery attempt."),
    endpointsDisabled: r.counter(
      "junction_webhook_endpoints_disabled_total",
      "Webhook endpoints disabled after failing for too long.",
    ),
  };
}
