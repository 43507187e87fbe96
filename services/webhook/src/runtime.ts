import type { ServiceImpl } from "@connectrpc/connect";
import type { Subscription } from "@junction/bus";
import type { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import type { TimerHandle } from "@junction/platform";
import type { WebhookServiceContext, WebhookServiceDeps } from "./context.ts";
import { deliverRound } from "./delivery/deliver-round.ts";
import { DeliveryScheduler } from "./delivery/delivery-scheduler.ts";
import { DeliveryTraces } from "./delivery/delivery-traces.ts";
import { startDeliveryWorker } from "./delivery/delivery-worker.ts";
import { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { createHttpSender } from "./delivery/http-sender.ts";
import { SigningKeys } from "./delivery/signing-keys.ts";
import { startInboundWorker } from "./inbound/inbound-worker.ts";
import { IntegrationCache } from "./inbound/integration-cache.ts";
import { DEFAULT_INTAKE_CONFIG } from "./config.ts";
import { IntakeLimits } from "./intake/intake-limits.ts";
import { batchedLookups } from "./inbound/notification-lookups.ts";
import { createWebhookService } from "./service.ts";
import { SettingsCache } from "./settings-cache.ts";
import { webhookMetrics } from "./webhook-metrics.ts";

/** Stored messages read per page when resuming or sweeping. */
const SWEEP_PAGE = 10_000;
/** Final messages deleted per write, and at most per sweep (the next sweep goes on). */
const PRUNE_PAGE = 500;
const PRUNE_MAX_PER_SWEEP = 50_000;

/** The webhook service with its workers: the RPC implementation, and start/stop for the workers. */
export interface WebhookRuntime {
  service: ServiceImpl<typeof WebhookService>;
  /** Resumes every pending and failed message from the store, then consumes both queues. */
  start(): Promise<void>;
  /** Stops consuming, waits for the rounds in flight (bounded by the attempt timeout). */
  stop(): Promise<void>;
}

/**
 * Builds the webhook service: the handlers, the inbound worker (notifications → messages), the
 * delivery worker (messages → store) and the scheduler (store → customer endpoints), sharing one
 * context. Nothing runs until `start`.
 */
export function createWebhookRuntime(deps: WebhookServiceDeps): WebhookRuntime {
  const logger = deps.logger;
  let environmentId: Promise<string> | undefined;
  const environment = () => {
    // The environment never changes: asked once, asked again only after a failure.
    environmentId ??= deps.environment().catch((err: unknown) => {
      environmentId = undefined;
      throw err;
    });
    return environmentId;
  };
  const keys = new SigningKeys(deps.encryptor);
  const allowedHosts = deps.allowedPrivateHosts ?? [];
  const send =
    deps.send ??
    createHttpSender({ allowPrivate: deps.allowPrivateEndpoints, allowedHosts, now: () => deps.clock.now() });
  // The local-development switch is for endpoints only: what a reader fetches passes the operator's hosts alone.
  const readerPolicy = new OutboundAddressPolicy({ allowedHosts, ...(deps.lookup ? { lookup: deps.lookup } : {}) });
  let ctx: WebhookServiceContext;
  const traces = deps.tracing ? new DeliveryTraces(deps.tracing) : undefined;
  const scheduler = new DeliveryScheduler({
    clock: deps.clock,
    logger: logger.child({ worker: "scheduler" }),
    concurrency: deps.delivery.concurrency,
    runRound: (id, claimed) =>
      traces === undefined
        ? deliverRound({ ctx, keys, send }, id, claimed)
        : traces.round(id, () => deliverRound({ ctx, keys, send }, id, claimed)),
  });
  const integrations = new IntegrationCache(
    deps.connections,
    deps.delivery.integrationCacheMs,
    undefined,
    deps.notificationAdapterOf,
  );
  const lookups = batchedLookups(deps.connections, deps.channels);
  const counts = webhookMetrics(deps.metrics, deps.store, () => deps.clock.now());
  const limits = new IntakeLimits(deps.intake ?? DEFAULT_INTAKE_CONFIG, deps.store, logger, () => deps.clock.now());
  ctx = {
    ...deps,
    send,
    environment,
    deliveries: scheduler,
    integrations,
    lookups,
    counts,
    limits,
    settings: new SettingsCache(deps.store, deps.encryptor, deps.clock),
    readerFetch: readerPolicy.guard((input, init) => fetch(input, init), "provider_settings", { httpsOnly: true }),
    ...(traces ? { traces } : {}),
  };
  const service = createWebhookService(ctx);
  const subscriptions: Subscription[] = [];
  let sweepTimer: TimerHandle | undefined;
  let stopped = false;

  /** Schedules every stored message that still needs delivering and is not known here yet. */
  const sweep = async () => {
    for (const entry of await deps.store.listDeliverable(SWEEP_PAGE)) {
      if (!scheduler.has(entry.id)) scheduler.schedule(entry.id, Math.max(entry.nextAttemptAt, entry.leaseUntil ?? 0));
    }
    await deps.store.pruneNotificationKeys(deps.clock.now() - deps.delivery.dedupRetentionMs);
    if (deps.delivery.messageRetentionMs > 0) {
      // In pages, so that no single write holds the store for long.
      const before = deps.clock.now() - deps.delivery.messageRetentionMs;
      let pruned = 0;
      for (let n = PRUNE_PAGE; n === PRUNE_PAGE && pruned < PRUNE_MAX_PER_SWEEP; pruned += n) {
        n = await deps.store.pruneFinishedMessages(before, PRUNE_PAGE);
      }
      if (pruned > 0) logger.info("old webhook messages pruned", { pruned, olderThan: new Date(before).toISOString() });
    }
  };
  const armSweep = () => {
    if (stopped) return;
    sweepTimer = deps.clock.setTimer(() => {
      sweep()
        .catch((err: unknown) => logger.error("delivery sweep failed", { error: err }))
        .finally(armSweep);
    }, deps.delivery.sweepIntervalMs);
  };

  return {
    service,
    async start() {
      await sweep();
      scheduler.start();
      subscriptions.push(await startDeliveryWorker(ctx), await startInboundWorker(ctx));
      armSweep();
      logger.info("webhook workers started", { resumed: scheduler.waiting });
    },
    async stop() {
      stopped = true;
      sweepTimer?.cancel();
      for (const s of subscriptions.splice(0).reverse()) await s.stop();
      await scheduler.stop();
    },
  };
}
