import { z } from "zod";
import { json } from "../http/json.ts";
import { dataOf, type RouteDoc } from "../openapi/route-doc.ts";
import type { Route, RouteContext } from "../router.ts";
import { presentSettings, settingsAnswer } from "./webhook-settings-answer.ts";

const testAnswer = z
  .object({
    ok: z.boolean().describe("Whether the endpoint answered 2xx in time."),
    message_id: z.string().describe("The webhook-id the test was signed with."),
    url: z.string(),
    status_code: z.number().int().nullable().describe("null: no answer (timeout, refused)."),
    latency_ms: z.number(),
    response_snippet: z.string().describe("The first bytes of the endpoint's answer."),
    error: z.string().nullable(),
    body: z.string().describe("The exact string that was signed and sent."),
  })
  .meta({ id: "WebhookEndpointTest" });
const endpointParam = { id: "The endpoint's id (ep_...)." };

/** Enabling, disabling and testing one webhook endpoint (/webhook-settings/endpoints/{id}/...). */
export function webhookEndpointRoutes(): Route[] {
  return [
    { method: "POST", pattern: "/webhook-settings/endpoints/:id/enable", handler: enableEndpoint, doc: enableDoc },
    { method: "POST", pattern: "/webhook-settings/endpoints/:id/disable", handler: disableEndpoint, doc: disableDoc },
    { method: "POST", pattern: "/webhook-settings/endpoints/:id/test", handler: testEndpoint, doc: testDoc },
  ];
}

async function enableEndpoint({ clients, params }: RouteContext): Promise<Response> {
  const res = await clients.webhook.enableEndpoint({ id: params.id ?? "" });
  return json({ data: presentSettings(res.settings) });
}

const enableDoc: RouteDoc = {
  summary: "Re-enable a webhook endpoint",
  description: "One that was disabled automatically after failing.",
  tags: ["Webhooks"],
  params: endpointParam,
  responses: { 200: dataOf(settingsAnswer) },
  errors: ["invalid_id", "unknown_endpoint", "settings_conflict"],
};

async function disableEndpoint({ clients, params }: RouteContext): Promise<Response> {
  const res = await clients.webhook.disableEndpoint({ id: params.id ?? "" });
  return json({ data: presentSettings(res.settings) });
}

const disableDoc: RouteDoc = {
  summary: "Disable a webhook endpoint",
  description:
    "No delivery is attempted to it until it is enabled again. Messages are not held for it: one that " +
    'has no enabled endpoint left ends `exhausted` ("every webhook endpoint is disabled"), and ' +
    "`POST /webhook-messages/replay-failed` sends it once an endpoint is enabled.",
  tags: ["Webhooks"],
  params: endpointParam,
  responses: { 200: dataOf(settingsAnswer) },
  errors: ["invalid_id", "unknown_endpoint", "settings_conflict"],
};

async function testEndpoint({ clients, params }: RouteContext): Promise<Response> {
  const r = await clients.webhook.testEndpoint({ id: params.id ?? "" });
  return json({
    data: {
      ok: r.error === "",
      message_id: r.messageId,
      url: r.url,
      status_code: r.statusCode === 0 ? null : r.statusCode,
      latency_ms: Number(r.latencyMs),
      response_snippet: r.responseSnippet,
      error: r.error || null,
      body: r.body,
    },
  });
}

const testDoc: RouteDoc = {
  summary: "Send a test message to a webhook endpoint",
  description:
    "Posts a signed message of type `test` to the endpoint (enabled or not) and answers what it " +
    "answered. The test is not recorded in the delivery log and never retried.",
  tags: ["Webhooks"],
  params: endpointParam,
  responses: { 200: dataOf(testAnswer) },
  errors: ["invalid_id", "unknown_endpoint"],
};
