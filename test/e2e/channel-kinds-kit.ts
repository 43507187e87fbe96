import { expect } from "bun:test";
import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import type { TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { environmentId, eventsUri, googHeaders, notify } from "./notifications-kit.ts";

/** One integration of each provider with channels, keyed by the integration id the kit gives it. */
export const KINDS = {
  "kinds-cal": { provider: "google-calendar", kind: "watch channel", channel: "kinds-cal-chan" },
  "kinds-mail": { provider: "google-mail", kind: "mailbox watch", channel: "" },
  "kinds-outlook": { provider: "microsoft-outlook-calendar", kind: "subscription", channel: "kinds-sub-1" },
} as const;
export type KindKey = keyof typeof KINDS;

const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const FAR = "2100-01-01T00:00:00.000Z";

/**
 * Creates the three integrations, records one channel of each as the proxy's channel tap would
 * (a calendar watch, a Gmail watch, a Graph subscription), and sends one notification to each webhook
 * URL as its upstream does (headers; a Pub/Sub push; a Graph batch): three forward messages.
 */
export async function seedChannelKinds(j: TestJunction): Promise<void> {
  const env = await environmentId(j);
  for (const [key, k] of Object.entries(KINDS)) {
    expect((await j.api("POST", "/integrations", { unique_key: key, provider: k.provider })).status).toBe(200);
  }
  const report = (key: KindKey, requestBody: unknown, responseBody: unknown) =>
    j.clients.proxy.reportChannelCall({
      call: ChannelCall.WATCH,
      environmentId: env,
      providerConfigKey: key,
      connectionId: `${key}-connection`,
      status: 200,
      requestBody: json(requestBody),
      responseBody: json(responseBody),
    });
  await report(
    "kinds-cal",
    { id: KINDS["kinds-cal"].channel, type: "web_hook", address: "https://x" },
    {
      id: KINDS["kinds-cal"].channel,
      resourceId: "r1",
      resourceUri: eventsUri("a@example.com"),
      expiration: "4102444800000",
    },
  );
  await report(
    "kinds-mail",
    { topicName: "projects/p/topics/t", labelIds: ["INBOX"] },
    { historyId: "1", expiration: "4102444800000" },
  );
  await report(
    "kinds-outlook",
    { changeType: "created", resource: "me/events", clientState: "kinds-state", expirationDateTime: FAR },
    { id: KINDS["kinds-outlook"].channel, resource: "me/events", expirationDateTime: FAR },
  );
  await waitFor("a channel of each kind", async () => {
    const res = await j.api("GET", "/channels");
    const keys = new Set(res.body.data.map((c: { provider_config_key: string }) => c.provider_config_key));
    return Object.keys(KINDS).every((k) => keys.has(k)) ? true : null;
  });

  expect((await notify(j, googHeaders(eventsUri("nobody@example.com")), { key: "kinds-cal" })).status).toBe(200);
  const data = Buffer.from(JSON.stringify({ emailAddress: "nobody@example.com", historyId: 42 })).toString("base64");
  const push = {
    message: { data, messageId: "kinds-msg-1", publishTime: "2026-01-01T00:00:00Z" },
    subscription: "projects/p/subscriptions/s",
  };
  const mail = await notify(
    j,
    { "content-type": "application/json" },
    { key: "kinds-mail", body: JSON.stringify(push) },
  );
  expect(mail.status).toBeLessThan(300);
  const item = {
    subscriptionId: KINDS["kinds-outlook"].channel,
    clientState: "kinds-state",
    changeType: "updated",
    resource: "Users/u/Events/e1",
    resourceData: { id: "e1" },
    subscriptionExpirationDateTime: FAR,
    tenantId: "t",
  };
  const batch = await notify(
    j,
    { "content-type": "application/json" },
    { key: "kinds-outlook", body: JSON.stringify({ value: [item] }) },
  );
  expect(batch.status).toBe(202);
}
