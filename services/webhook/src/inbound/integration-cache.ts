import { ExpiringCache } from "@junction/platform";
import type { WebhookServiceDeps } from "../context.ts";
import { findIntegration, type IntegrationView, type NotificationAdapterOf } from "./integration-lookup.ts";

/**
 * Integrations as notification handling sees them, remembered for `ttlMs` of monotonic time: every
 * notification needs its integration (is the URL known? is forwarding on? which header names?), and
 * asking the connection service each time would double the calls on the hot path. An integration
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

  /** The integration, or null when the connection service does not know it. */
  async get(providerConfigKey: string): Promise<IntegrationView | null> {
    const now = this.now();
    const hit = this.entries.get(providerConfigKey, now);
    if (hit !== undefined) return hit;
    const view = await findIntegration(this.connections, providerConfigKey, this.notificationsOf);
    if (view === null) this.entries.delete(providerConfigKey);
    else if (this.ttlMs > 0) this.entries.set(providerConfigKey, view, now + this.ttlMs);
    return view;
  }
}
