import { documentationExample } from "@junction/providers";
import { z } from "zod";
import { dataOf, type RouteDoc } from "../openapi/route-doc.ts";

/** POST /webhook/{environment}/{integration} in the OpenAPI document. */
export const INBOUND_WEBHOOK_DOC: RouteDoc = {
  summary: "Receive an upstream notification",
  description:
    `Where the upstream (e.g. ${documentationExample.displayName}) sends notifications; no secret key (the upstream cannot send one). ` +
    "Answers 200 once recorded durably (a provider that sends batches: its own 2xx, e.g. 202, once every item is recorded); " +
    "matching and forwarding happen after. A body is recorded up to the provider's limit. " +
    "A provider's handshake (a subscription validation request) is answered as the provider expects, nothing recorded. " +
    "Over the intake limits (per integration and per channel rates, the integration's pending work) the answer is 503 with Retry-After, nothing recorded: the upstream sends it again later. " +
    "So is a notification that could not be recorded because a service or store Junction depends on failed (503 `service_unavailable`, Retry-After): a 2xx means recorded durably, a 4xx a refusal of the notification itself. " +
    "An integration with `strict_channels` drops notifications for channels unknown to it (404 `unknown_channel`; a batch provider's items are dropped one by one and the batch answered as usual).",
  tags: ["Webhooks"],
  params: { environment: "The environment's id.", integration: "The integration's id." },
  responses: {
    200: dataOf(
      z.object({
        id: z.string(),
        duplicate: z.boolean().describe("Already received (the same message)."),
        ids: z.array(z.string()).optional().describe("A batch's recorded notifications, one per item kept."),
      }),
    ),
  },
  errors: [
    "unknown_webhook_url",
    "invalid_notification",
    "headers_too_large",
    "request_too_large",
    "channel_token_mismatch",
    "unknown_channel",
    "webhook_rate_limited",
    "channel_rate_limited",
    "webhook_backlog_full",
  ],
};
