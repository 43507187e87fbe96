import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  ReceiveNotificationRequest,
  ReceiveNotificationResponseSchema,
} from "@junction/contracts/webhook/v1/webhook_service_pb";
import { type Clock, fromConnectError } from "@junction/platform";
import type { OperationStatus } from "@junction/platform/operations/operation";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";

type ReceiveResult = MessageInitShape<typeof ReceiveNotificationResponseSchema>;

/** A successful receipt's outcome, the word its per-minute total is kept under. */
function outcomeWord(r: ReceiveResult): string {
  return r.handshake ? "handshake" : r.duplicate ? "duplicate" : "recorded";
}

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
 * A successful receipt (recorded, duplicate, handshake) is counted into its minute's total per (environment,
 * integration, outcome): a map update, since two rows per notification (this and its delivery round, which
 * names the notification) cost a tenth of the notification rate. It is a row of its own, with its ids, when
 * the operator asked for them one by one (JUNCTION_LOGS_NOTIFICATION_RECEIPTS) or keeps the integration's
 * bodies (the body is the point). Refused ones are always a row each; throttled and dropped ones never are.
 */
export function recordReceipt(
  recorder: OperationRecorder | undefined,
  clock: Clock,
  req: ReceiveNotificationRequest,
  receipt: Promise<ReceiveResult>,
): Promise<ReceiveResult> {
  if (!recorder?.enabled) return receipt;
  const startedAtMs = clock.now();
  return receipt.then(
    (r) => {
      // What the intake limits and the channel check turn away is a flood's shape: counted in the metrics and the
      // overview, never a row per request (the limits exist so that a flood writes nothing).
      if (r.throttled || r.dropped) return r;
      const integration = req.providerConfigKey;
      if (!recorder.notificationReceipts && !recorder.keepsBodies(integration)) {
        const now = clock.now();
        recorder.receiptTotals.add(req.environmentId, integration, "", outcomeWord(r), 0, now - startedAtMs, now);
        return r;
      }
      const { status, text } = outcome(r);
      const fields = recorder.keepsBodies(integration) ? { body: new TextDecoder().decode(req.body) } : undefined;
      recorder.record({
        ...base(req, startedAtMs),
        status,
        title: `notification for ${integration}: ${text.split(":")[0]}`,
        messages: [
          { atMs: clock.now(), level: status === "success" ? "info" : "warn", text, ...(fields ? { fields } : {}) },
        ],
      });
      return r;
    },
    (err: unknown) => {
      const failure = fromConnectError(err);
      recorder.record({
        ...base(req, startedAtMs),
        status: "refused",
        title: `notification for ${req.providerConfigKey}: ${failure.code}`,
        messages: [{ atMs: clock.now(), level: "warn", text: `${failure.code}: ${failure.message}` }],
      });
      throw err;
    },
  );
}

function base(req: ReceiveNotificationRequest, startedAtMs: number) {
  return {
    kind: "notification_received" as const,
    startedAtMs,
    environmentId: req.environmentId,
    integration: req.providerConfigKey,
  };
}
