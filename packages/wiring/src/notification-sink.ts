import type { MatchRule } from "@junction/contracts/connection/v1/connection_service_pb";

/** An accepted notification after matching: what a sink is told. */
export interface MatchedNotification {
  /** ntf_... */
  notificationId: string;
  environmentId: string;
  providerConfigKey: string;
  /** Provider template name of the integration. */
  provider: string;
  /** Headers as received, names lower-cased. */
  headers: Readonly<Record<string, string>>;
  /** Matched connection ids; empty when nothing matched (spec: matching rule 4). */
  connectionIds: readonly string[];
  rule: MatchRule;
  receivedAt: number;
  /**
   * The body as received (bounded by the provider's limit); empty for providers that send none. For
   * an item of a batch whose adapter gave it a payload, empty: the payload is the item's part of the
   * body (the batch's body is not recorded once per item).
   */
  body: Uint8Array;
  /** The Content-Type header as received; empty when none. */
  contentType: string;
  /** The webhook URL's query string, without the "?"; empty when none. */
  query: string;
  /** What the provider's adapter made of it (the forwarded payload), when it gave one. */
  payload?: Readonly<Record<string, unknown>>;
}

/** What a sink did with a notification. */
export interface SinkResult {
  /**
   * Connections whose notification the sink handled itself (a sync subscribed to webhooks runs
   * instead of forwarding, spec: Customer-side scripts): no forward message is sent for them.
   */
  handledConnectionIds?: readonly string[];
}

/**
 * A consumer of accepted notifications besides forwarding: the seam where the scripts runtime's
 * webhook subscriptions (`webhookSubscriptions` + `onWebhook`) plug in. Sinks run in order, after
 * matching and before forwarding, for every notification that is not a duplicate and not dropped.
 * A sink that throws makes the notification be processed again later (its job is not acked), so a
 * sink must be idempotent per notification id.
 */
export interface NotificationSink {
  /** For logs. */
  readonly name: string;
  onNotification(notification: MatchedNotification): Promise<SinkResult | undefined>;
}
