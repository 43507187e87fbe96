import type { ServiceImpl } from "@connectrpc/connect";
import type { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import type { WebhookServiceDeps } from "./context.ts";
import { settingsHandlers } from "./handlers/settings.ts";

/** The WebhookService implementation, assembled from its handler groups. */
export function createWebhookService(deps: WebhookServiceDeps): ServiceImpl<typeof WebhookService> {
  return {
    ...settingsHandlers(deps),
  } as ServiceImpl<typeof WebhookService>;
}
