import { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import {
  createWebhookRuntime,
  type DeliveryConfig,
  type IntakeConfig,
  loadAllowPrivateEndpoints,
  loadDeliveryConfig,
  loadIntakeConfig,
  openWebhookStore,
  type WebhookRuntime,
  type WebhookServiceDeps,
  type WebhookServiceStore,
} from "@junction/webhook-service";
import { loadAllowedPrivateHosts } from "@junction/platform/outbound-address-policy";
import type { ServiceSpec } from "@junction/wiring";

/** The webhook service's settings. */
export interface WebhookConfig {
  delivery: DeliveryConfig;
  intake: IntakeConfig;
  allowPrivateEndpoints: boolean;
  /** JUNCTION_ALLOWED_PRIVATE_HOSTS: endpoints and what readers fetch (a push's JWKS) may reach these. */
  allowedPrivateHosts: string[];
}

/**
 * What the process adds to the webhook service: the sinks of matched notifications (the scripts
 * service's, given by the table), and for tests a reader of notifications or a sender of deliveries.
 */
export type WebhookExtras = Partial<Pick<WebhookServiceDeps, "sinks" | "notificationAdapterOf" | "send">>;

/** The webhook service in the service table: receipt, the inbound worker and delivery. */
export const webhookSpec: ServiceSpec<
  WebhookConfig,
  { runtime: WebhookRuntime; store: WebhookServiceStore },
  WebhookExtras
> = {
  name: "webhook",
  defaultPort: 4104,
  needs: {
    clients: ["connection", "channel"],
    // Its scripts sink, added by the service table when the scripts service runs.
    optionalClients: ["scripts"],
    bus: true,
    encryptor: true,
    database: true,
  },
  config: (env) => ({
    delivery: loadDeliveryConfig(env),
    intake: loadIntakeConfig(env),
    allowPrivateEndpoints: loadAllowPrivateEndpoints(env),
    allowedPrivateHosts: loadAllowedPrivateHosts(env),
  }),
  async build(ctx, config, extras = {}) {
    const store = await openWebhookStore(ctx.common, ctx.db);
    const runtime = createWebhookRuntime({
      store,
      encryptor: ctx.encryptor,
      clock: ctx.clock,
      logger: ctx.logger,
      allowPrivateEndpoints: config.allowPrivateEndpoints,
      allowedPrivateHosts: config.allowedPrivateHosts,
      ...(ctx.lookup ? { lookup: ctx.lookup } : {}),
      environment: ctx.environment,
      bus: ctx.bus,
      connections: ctx.client("connection"),
      channels: ctx.client("channel"),
      delivery: config.delivery,
      intake: config.intake,
      sinks: extras.sinks ?? [],
      metrics: ctx.metrics,
      operations: ctx.operations,
      ...(ctx.tracing ? { tracing: ctx.tracing } : {}),
      ...(extras.notificationAdapterOf ? { notificationAdapterOf: extras.notificationAdapterOf } : {}),
      ...(extras.send ? { send: extras.send } : {}),
    });
    return {
      routes: (r) => r.service(WebhookService, runtime.service),
      // Resumes undelivered messages and consumes the notification and delivery queues.
      start: () => runtime.start(),
      stop: () => runtime.stop(),
      close: () => store.close(),
      parts: { runtime, store },
    };
  },
};
