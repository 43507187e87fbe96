import { MetricsRegistry } from "@junction/platform";
import type { ChannelStore } from "./store/store.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The channel registry's gauges, read from the store at each scrape: channels active, and those
 * expiring within a day (the ones an operator pages on when renewals stop).
 */
export function registerChannelGauges(
  registry: MetricsRegistry | undefined,
  store: ChannelStore,
  environment: () => Promise<string>,
  now: () => number,
): void {
  const r = registry ?? new MetricsRegistry();
  const active = r.gauge("junction_channels_active", "Notification channels active in the registry.");
  const expiring = r.gauge(
    "junction_channels_expiring_within_day",
    "Active notification channels whose expiration is less than a day away.",
  );
  r.onCollect(async () => {
    const env = await environment();
    const at = now();
    const [all, soon] = await Promise.all([
      store.list(env, { state: "active" }, at),
      store.list(env, { state: "active", expiringBefore: at + DAY_MS }, at),
    ]);
    active.set(all.length);
    expiring.set(soon.length);
  });
}
