import { ExpiringCache } from "@junction/platform";
import type { WebhookServiceDeps } from "../context.ts";
import { findIntegration, type IntegrationView, type NotificationAdapterOf } from "./integration-lookup.ts";

/**
 * Integrations as receipt sees them (is the webhook URL known, and how are its requests read?),
 * remembered for `ttlMs` of monotonic time, so that a notification costs one call to the connection
 * service at most. The worker does not ask again: its match call answers the integration as it is
 * when it forwards (MatchNotifications refuses one deleted since receipt). An integration deleted or
 * changed is seen here at most `ttlMs` late; an unknown one is never remembered, so a new integration
 * is known at once. The TTL is wall time, not the injected clock: it bounds staleness, it is not a
 * schedule.
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
