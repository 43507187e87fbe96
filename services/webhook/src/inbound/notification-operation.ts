import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  ReceiveNotificationRequest,
  ReceiveNotificationResponseSchema,
} from "@junction/contracts/webhook/v1/webhook_service_pb";
import { type Clock, fromConnectError } from "@junction/platform";
import type { OperationStatus } from "@junction/platform/operations/operation";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";

type ReceiveResult = MessageInitShape<typeof ReceiveNotificationResponseSchema>;

/** What a receipt's answer says, as the operations log tells it. */
function outcome(r: ReceiveResult): { status: OperationStatus; text: string } {
  if (r.handshake) return { status: "success", text: "provider handshake answered" };
  if (r.duplicate) return { status: "success", text: `duplicate of ${r.notificationId ?? ""}, not recorded again` };
  const ids = r.notificationIds?.length ? r.notificationIds : [r.notificationId ?? ""];
  return { status: "success", text: `recorded ${ids.join(", ")}` };
}

/**
 * Records one notification received (or refused with an error) in the operations log once its receipt settled:
 * the integration, how it ended, never its headers or body (unless the operator keeps the integration's bodies).
 * Throttled and dropped ones are not recorded one by one.
 */
export function recordReceipt(
  recorder: OperationRecorder | undefined,
  clock: Clock,
  req: ReceiveNotificationRequest,
  receipt: Promise<ReceiveResult>,
): Promise<ReceiveResult> {
  if (!recorder?.enabled) return receipt;
  const startedAtMs = clock.now();
  const base = {
    kind: "notification_received" as const,
    startedAtMs,
    environmentId: req.environmentId,
    integration: req.providerConfigKey,
  };
  const body = (): Record<string, unknown> | undefined =>
    recorder.keepsBodies(req.providerConfigKey) ? { body: new TextDecoder().decode(req.body) } : undefined;
  return receipt.then(
    (r) => {
      // What the intake limits and the channel check turn away is a flood's shape: counted in the metrics and the
      // overview, never a row per request (the limits exist so that a flood writes nothing).
      if (r.throttled || r.dropped) return r;
      const { status, text } = outcome(r);
      const fields = body();
      recorder.record({
        ...base,
        status,
        title: `notification for ${req.providerConfigKey}: ${text.split(":")[0]}`,
        messages: [
          { atMs: clock.now(), level: status === "success" ? "info" : "warn", text, ...(fields ? { fields } : {}) },
        ],
      });
      return r;
    },
    (err: unknown) => {
      const failure = fromConnectError(err);
      recorder.record({
        ...base,
        status: "refused",
        title: `notification for ${req.providerConfigKey}: ${failure.code}`,
        messages: [{ atMs: clock.now(), level: "warn", text: `${failure.code}: ${failure.message}` }],
      });
      throw err;
    },
  );
}
