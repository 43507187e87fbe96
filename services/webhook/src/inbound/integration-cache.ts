import type { WebhookServiceDeps } from "../context.ts";
import { findIntegration, type IntegrationView } from "./integration-lookup.ts";

/**
 * Integrations as notification handling sees them, remembered for `ttlMs` of monotonic time: every
 * notification needs its integration (is the URL known? is forwarding on? which header names?), and
 * asking the connection service each time would double the calls on the hot path. An integration
 * deleted or changed is seen at most `ttlMs` late; an unknown one is never remembered, so a new
 * integration is known at once. The TTL is wall time, not the injected clock: it bounds staleness,
 * it is not a schedule.
 */
export class IntegrationCache {
  private readonly entries = new Map<string, { view: IntegrationView; until: number }>();

  constructor(
    private readonly connections: WebhookServiceDeps["connections"],
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The integration, or null when the connection service does not know it. */
  async get(providerConfigKey: string): Promise<IntegrationView | null> {
    const now = this.now();
    const hit = this.entries.get(providerConfigKey);
    if (hit && hit.until > now) return hit.view;
    const view = await findIntegration(this.connections, providerConfigKey);
    if (view === null) this.entries.delete(providerConfigKey);
    else if (this.ttlMs > 0) {
      // Integrations are few; the bound only stops a flood of distinct keys from growing the map.
      if (this.entries.size > 10_000) this.entries.clear();
      this.entries.set(providerConfigKey, { view, until: now + this.ttlMs });
    }
    return view;
  }
}
