import type { Client } from "@connectrpc/connect";
import type { Bus } from "@junction/bus";
import type { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type { Clock, Encryptor, Logger, MetricsRegistry, Tracing } from "@junction/platform";
import type { HostLookup } from "@junction/platform/address-policy";
import type { PolicyFetch } from "@junction/platform/outbound-address-policy";
import type { DeliveryConfig, IntakeConfig } from "./config.ts";
import type { DeliveryTraces } from "./delivery/delivery-traces.ts";
import type { IntakeLimits } from "./intake/intake-limits.ts";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { WebhookMetrics } from "./webhook-metrics.ts";
import type { IntegrationCache } from "./inbound/integration-cache.ts";
import type { NotificationAdapterOf } from "./inbound/integration-lookup.ts";
import type { NotificationLookups } from "./inbound/notification-lookups.ts";
import type { NotificationSink } from "@junction/wiring";
import type { SendRequest, SendResult } from "./delivery/http-sender.ts";
import type { MessageRecord } from "./store/records.ts";
import type { SettingsCache } from "./settings-cache.ts";
import type { WebhookServiceStore } from "./store/store.ts";

/** What the webhook service needs; passed in, never module-level. */
export interface WebhookServiceDeps {
  store: WebhookServiceStore;
  /** Encrypts signing secrets at rest. */
  encryptor: Encryptor;
  clock: Clock;
  logger: Logger;
  /**
   * Lets endpoints point at private, loopback and link-local addresses, and at http://loopback.
   * For local development and tests only; see address-policy.ts.
   */
  allowPrivateEndpoints: boolean;
  /** Hosts the operator allows although private (JUNCTION_ALLOWED_PRIVATE_HOSTS): endpoints, and a push's JWKS. */
  allowedPrivateHosts?: readonly string[];
  /** DNS for the address policy of what receipt fetches (a JWKS); a test resolver in tests. */
  lookup?: HostLookup;
  /**
   * The id of the environment the service works for (one for now). The composition root passes a
   * function that asks the connection service; the service remembers the answer.
   */
  environment(): Promise<string>;
  /** Durable queues: inbound notifications and messages to deliver (MemoryBus or NatsBus). */
  bus: Bus;
  /** Integrations (is the webhook URL known, forwarding on?) and notification matching. */
  connections: Client<typeof ConnectionService>;
  /** The channel registry: channel tokens and message numbers. */
  channels: Client<typeof ChannelService>;
  /** Retry schedule, timeouts, concurrency; `loadDeliveryConfig(env)`. */
  delivery: DeliveryConfig;
  /** Rate limits and the pending-work cap of the webhook URL; `loadIntakeConfig(env)`, its defaults when absent. */
  intake?: IntakeConfig;
  /**
   * Consumers of accepted notifications besides forwarding (the scripts runtime's webhook
   * subscriptions): see notification-sink.ts.
   */
  sinks?: NotificationSink[];
  /**
   * How a provider's notifications are read; default its adapter's (`providerAdapter(name).notifications`).
   * Tests give a reader of their own here.
   */
  notificationAdapterOf?: NotificationAdapterOf;
  /** Posts one attempt; the default is the address-checking HTTP client (tests may resolve names their way). */
  send?: (request: SendRequest) => Promise<SendResult>;
  /** The process's metrics; a registry of its own when absent. */
  metrics?: MetricsRegistry;
  /** The process's tracing: delivery rounds traced under the notification that made the message. */
  tracing?: Tracing;
  /** The process's operations log: receipts and delivery attempts are recorded there. */
  operations?: OperationRecorder;
}

/** Wakes the delivery scheduler for a message. */
export interface DeliveryWaker {
  /** Due at `at` (Unix ms). */
  schedule(messageId: string, at: number): void;
  /** A new message stored with its first claim taken: its first round runs without claiming. */
  scheduleClaimed(message: MessageRecord): void;
}

/** The handlers' view of the service: the deps, with the environment remembered, and the scheduler. */
export interface WebhookServiceContext extends WebhookServiceDeps {
  /** Posts one attempt (the deps' sender, or the address-checking HTTP client). */
  send: (request: SendRequest) => Promise<SendResult>;
  deliveries: DeliveryWaker;
  /** Integrations of recent notifications (see integration-cache.ts). */
  integrations: IntegrationCache;
  /** Channel checks and matching, batched across the notifications handled at once. */
  lookups: NotificationLookups;
  /** What it counts (webhookMetrics). */
  counts: WebhookMetrics;
  /** The traces of messages awaiting their rounds, with tracing on. */
  traces?: DeliveryTraces;
  /** Intake's rate limits and pending-work cap (see intake/intake-limits.ts). */
  limits: IntakeLimits;
  /** The settings as delivery rounds use them, and the changes this process saves (settings-cache.ts). */
  settings: SettingsCache;
  /** What a provider's reader fetches (a JWKS): through the address policy, each redirect hop checked. */
  readerFetch: PolicyFetch;
}
