import type { ServiceImpl } from "@connectrpc/connect";
import type { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import type { WebhookServiceContext } from "../context.ts";
import { getMessage, listMessages } from "./message/read-messages.ts";
import { receiveNotifications } from "./message/receive-notifications.ts";
import { replayFailed, replayMessage } from "./message/replay-messages.ts";

/** ReceiveNotifications, the delivery log (ListMessages, GetMessage) and replays, one file each under `message/`. */
export function messageHandlers(ctx: WebhookServiceContext): Partial<ServiceImpl<typeof WebhookService>> {
  return {
    receiveNotifications: (req) => receiveNotifications(ctx, req),
    listMessages: (req) => listMessages(ctx, req),
    getMessage: (req) => getMessage(ctx, req),
    replayMessage: (req) => replayMessage(ctx, req),
    replayFailed: (req) => replayFailed(ctx, req),
  };
}
