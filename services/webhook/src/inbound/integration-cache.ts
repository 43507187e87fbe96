import { ExpiringCache } from "@junction/platform";
import type { WebhookServiceDeps } from "../context.ts";
import { findIntegration, type IntegrationView, type NotificationAdapterOf } from "./integration-lookup.ts";

/** What the inbound worker needs of an integration that still exists, when it forwards a notification. */
export interface CurrentIntegration {
  /** Its provider's name (the forwarded message's `from`, the sinks' `provider`). */
  provider: string;
  /** Whether matched notifications are forwarded to the customer (the operator may turn it off). */
  forwardWebhooks: boolean;
  /** Whether notifications for channels unknown to the registry are dropped (`strict_channels`). */
  strictChannels: boolean;
  /** Where each header role is looked up (only for a notification recorded before receipt read them). */
  headerNames: IntegrationView["headerNames"];
}

/**
 * Integrations as notification handling sees them, remembered for `ttlMs` of monotonic time. Two
 * different questions are asked of them, at two moments (issue 21, item 6): receipt's `webhookUrl`
 * (is the webhook URL known, and how are its requests read?) before the provider's 2xx, and the
 * worker's `stillExists` (does the integration still exist, and is forwarding on?) when it forwards,
 * which may be long after receipt (the queue was backed up, the service was down): an integration
 * deleted or changed meanwhile must be seen then. Both are answered from here, so one notification
 * costs one call to the connection service at most. An integration
 * deleted or changed is seen at most `ttlMs` late; an unknown one is never remembered, so a new
 * integration is known at once. The TTL is wall time, not the injected clock: it bounds staleness,
 * it is not a schedule.
 */
export class IntegrationCache {
  // Integrations are few; the bound only stops a flood of distinct keys from growing the map.
  private readonly entries: ExpiringCache<string, IntegrationView>;

  constructor(
    private readonly connections: WebhookServiceDeps["connections"],
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly notificationsOf?: NotificationAdapterOf,
  ) {
    this.entries = new ExpiringCache({ maxEntries: 10_000, now });
  }

  /**
   * Receipt's check: the integration a webhook URL names, with how its notifications are read; null
   * when the connection service does not know it (the URL is unknown: 404).
   */
  webhookUrl(providerConfigKey: string): Promise<IntegrationView | null> {
    return this.get(providerConfigKey);
  }

  /**
   * The worker's check, not receipt's again: whether the integration still exists now that its
   * notification is forwarded (null: deleted since receipt, the notification is dropped), and what
   * forwarding needs of it as it is now.
   */
  async stillExists(providerConfigKey: string): Promise<CurrentIntegration | null> {
    const view = await this.get(providerConfigKey);
    if (view === null) return null;
    return {
      provider: view.integration.provider,
      forwardWebhooks: view.integration.forwardWebhooks,
      strictChannels: view.integration.strictChannels,
      headerNames: view.headerNames,
    };
  }

  /** The integration, or null when the connection service does not know it. */
  private async get(providerConfigKey: string): Promise<IntegrationView | null> {
    const now = this.now();
    const hit = this.entries.get(providerConfigKey, now);
    if (hit !== undefined) return hit;
    const view = await findIntegration(this.connections, providerConfigKey, this.notificationsOf);
    if (view === null) this.entries.delete(providerConfigKey);
    else if (this.ttlMs > 0) this.entries.set(providerConfigKey, view, now + this.ttlMs);
    return view;
  }
}
