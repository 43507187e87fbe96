import type { ServiceImpl } from "@connectrpc/connect";
import type { Subscription } from "@junction/bus";
import type { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import type { WebhookServiceContext, WebhookServiceDeps } from "./context.ts";
import { type RoundDeps, deliverRound } from "./delivery/deliver-round.ts";
import { DeliveryScheduler } from "./delivery/delivery-scheduler.ts";
import { DeliverySweep } from "./delivery/delivery-sweep.ts";
import { DeliveryTraces } from "./delivery/delivery-traces.ts";
import { startDeliveryWorker } from "./delivery/delivery-worker.ts";
import { createHttpSender } from "./delivery/http-sender.ts";
import { SigningKeys } from "./delivery/signing-keys.ts";
import { startInboundWorker } from "./inbound/inbound-worker.ts";
import { createWebhookService } from "./service.ts";
import { createServiceContext } from "./service-context.ts";

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
  const send =
    deps.send ??
    createHttpSender({
      allowPrivate: deps.allowPrivateEndpoints,
      allowedHosts: deps.allowedPrivateHosts ?? [],
      now: () => deps.clock.now(),
    });
  const traces = deps.tracing ? new DeliveryTraces(deps.tracing) : undefined;
  // Rounds run only after `start`, by when the context they need is built.
  let round: RoundDeps;
  const scheduler = new DeliveryScheduler({
    clock: deps.clock,
    logger: deps.logger.child({ worker: "scheduler" }),
    concurrency: deps.delivery.concurrency,
    runRound: (id, claimed) =>
      traces === undefined
        ? deliverRound(round, id, claimed)
        : traces.round(id, () => deliverRound(round, id, claimed)),
  });
  const ctx = createServiceContext(deps, send, scheduler, traces);
  round = { ctx, keys: new SigningKeys(deps.encryptor), send };
  return workersOf(ctx, scheduler, new DeliverySweep(deps, scheduler));
}

/** The service and the start/stop of its workers, the scheduler and the sweep. */
function workersOf(ctx: WebhookServiceContext, scheduler: DeliveryScheduler, sweep: DeliverySweep): WebhookRuntime {
  const subscriptions: Subscription[] = [];
  return {
    service: createWebhookService(ctx),
    async start() {
      await sweep.run();
      scheduler.start();
      subscriptions.push(await startDeliveryWorker(ctx), await startInboundWorker(ctx));
      sweep.arm();
      ctx.logger.info("webhook workers started", { resumed: scheduler.waiting });
    },
    async stop() {
      sweep.stop();
      for (const s of subscriptions.splice(0).reverse()) await s.stop();
      await scheduler.stop();
    },
  };
}
