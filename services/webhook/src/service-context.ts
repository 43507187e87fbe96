import { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { DEFAULT_INTAKE_CONFIG } from "./config.ts";
import type { DeliveryWaker, WebhookServiceContext, WebhookServiceDeps } from "./context.ts";
import type { DeliveryTraces } from "./delivery/delivery-traces.ts";
import { IntegrationCache } from "./inbound/integration-cache.ts";
import { batchedLookups } from "./inbound/notification-lookups.ts";
import { IntakeLimits } from "./intake/intake-limits.ts";
import { SettingsCache } from "./settings-cache.ts";
import { webhookMetrics } from "./webhook-metrics.ts";

/**
 * The context the handlers and workers share: the deps, with the environment remembered, the caches,
 * the batched lookups, the metrics, the intake limits and the reader's guarded fetch.
 */
export function createServiceContext(
  deps: WebhookServiceDeps,
  send: WebhookServiceContext["send"],
  deliveries: DeliveryWaker,
  traces: DeliveryTraces | undefined,
): WebhookServiceContext {
  const now = () => deps.clock.now();
  // The local-development switch is for endpoints only: what a reader fetches passes the operator's hosts alone.
  const readerPolicy = new OutboundAddressPolicy({
    allowedHosts: deps.allowedPrivateHosts ?? [],
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
  });
  return {
    ...deps,
    send,
    environment: rememberedEnvironment(deps.environment),
    deliveries,
    integrations: new IntegrationCache(
      deps.connections,
      deps.delivery.integrationCacheMs,
      undefined,
      deps.notificationAdapterOf,
    ),
    lookups: batchedLookups(deps.connections, deps.channels),
    counts: webhookMetrics(deps.metrics, deps.store, now),
    limits: new IntakeLimits(deps.intake ?? DEFAULT_INTAKE_CONFIG, deps.store, deps.logger, now),
    settings: new SettingsCache(deps.store, deps.encryptor, deps.clock),
    readerFetch: readerPolicy.guard((input, init) => fetch(input, init), "provider_settings", { httpsOnly: true }),
    ...(traces ? { traces } : {}),
  };
}

/** The environment never changes: asked once, asked again only after a failure. */
function rememberedEnvironment(ask: () => Promise<string>): () => Promise<string> {
  let environmentId: Promise<string> | undefined;
  return () => {
    environmentId ??= ask().catch((err: unknown) => {
      environmentId = undefined;
      throw err;
    });
    return environmentId;
  };
}
