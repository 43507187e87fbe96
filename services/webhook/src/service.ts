import type { ServiceImpl } from "@connectrpc/connect";
import type { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import type { WebhookServiceContext } from "./context.ts";
import { endpointControlHandlers } from "./handlers/endpoint-controls.ts";
import { messageHandlers } from "./handlers/messages.ts";
import { settingsHandlers } from "./handlers/settings.ts";

/**
 * The WebhookService implementation, assembled from its handler groups. `ctx.deliveries` is the
 * scheduler replays wake; `createWebhookRuntime` builds the whole service with its workers.
 */
export function createWebhookService(ctx: WebhookServiceContext): ServiceImpl<typeof WebhookService> {
  return {
    ...settingsHandlers(ctx),
    ...messageHandlers(ctx),
    ...endpointControlHandlers(ctx),
  } as ServiceImpl<typeof WebhookService>;
}
