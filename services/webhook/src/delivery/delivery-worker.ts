import { type DeliveryRequested, DeliveryRequestedSchema } from "@junction/contracts/events/v1/events_pb";
import { fromBinary } from "@bufbuild/protobuf";
import { type Job, queues, type Subscription } from "@junction/bus";
import type { WebhookServiceContext } from "../context.ts";
import { acceptMessage } from "./accept-message.ts";

/** Bodies larger than this are refused (a forward is well under 10 KiB). */
export const MAX_BODY_BYTES = 1024 * 1024;
const MESSAGE_ID = /^msg_[0-9a-hjkmnp-tv-z]{26}$/;

/**
 * The delivery worker: takes DeliveryRequested jobs (any type: forward, auth, endpoint_disabled...)
 * from the delivery queue, stores each message (idempotent on its id: a job delivered twice stores
 * it once), acks the job, and hands the message to the scheduler. From then on the store holds it:
 * a crash loses nothing, and the scheduler finds it again at start.
 */
export function startDeliveryWorker(ctx: WebhookServiceContext): Promise<Subscription> {
  const log = ctx.logger.child({ worker: "delivery" });
  return ctx.bus.consume(
    queues.webhookDelivery,
    async (job: Job) => {
      let request: DeliveryRequested;
      try {
        request = fromBinary(DeliveryRequestedSchema, job.data);
      } catch (err) {
        log.error("undecodable delivery job dropped", { error: err });
        await job.term();
        return;
      }
      const problem = requestProblem(request);
      if (problem) {
        log.error("delivery request refused", { messageId: request.messageId, type: request.type, problem });
        await job.term();
        return;
      }
      // A failure to store throws: the bus delivers the job again. Acked once the message is stored.
      await acceptMessage(ctx, {
        id: request.messageId,
        environmentId: request.environmentId,
        type: request.type,
        providerConfigKey: request.providerConfigKey,
        connectionId: request.connectionId,
        notificationId: request.notificationId,
        body: request.body,
        createdAt: Number(request.atMs),
        targetUrl: request.targetUrl || undefined,
      });
      await job.ack();
    },
    { concurrency: ctx.delivery.inboundConcurrency, ackWaitMs: 60_000 },
  );
}

function requestProblem(r: DeliveryRequested): string | null {
  if (!MESSAGE_ID.test(r.messageId)) return "message_id must be a msg_ id";
  if (r.environmentId === "") return "environment_id is required";
  if (r.type === "" || r.type.length > 64) return "type must be 1 to 64 characters";
  if (r.body.byteLength === 0) return "body is empty";
  if (r.body.byteLength > MAX_BODY_BYTES) return `body is larger than ${MAX_BODY_BYTES} bytes`;
  return null;
}
