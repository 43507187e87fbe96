import { afterEach, describe, expect, test } from "bun:test";
import { startWebhookReceiver, type WebhookReceiver } from "../fake-upstream/index.ts";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { forwardsOf } from "./push-stories-kit.ts";
import { connectInBrowser, integration } from "./sandbox-kit.ts";

// The no-account demo of docs/test-mode.md for Gmail and Outlook, step by step as written there:
// `npm start` with the sandbox upstream, test mode, the sandbox's consent pages in the browser, then a
// watch or a subscription made through the proxy, and a change on the sandbox forwarded to the endpoint.

let j: TestJunction | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await j?.close();
  await receiver?.stop();
  j = undefined;
  receiver = undefined;
});

/** Junction with the sandbox upstream, a receiver as the customer's endpoint; the sandbox's URL from the log. */
async function startDemo() {
  receiver = startWebhookReceiver();
  j = await startTestJunction({ env: { JUNCTION_SANDBOX_UPSTREAM: "true" } });
  const line = j.logLines.find((l) => l.includes("sandbox upstream listening")) ?? "";
  const sandbox = (JSON.parse(line) as { url: string }).url;
  expect((await j.api("PUT", "/webhook-settings", { endpoints: [receiver.url] })).status).toBe(200);
  return { j, receiver, sandbox };
}

describe("the no-account demo (docs/test-mode.md: sandbox upstream)", () => {
  test("Gmail: a push subscription on the sandbox's Pub/Sub, a watch and a sent mail: a signed push forwarded", async () => {
    const { j, receiver, sandbox } = await startDemo();
    const webhookUrl = await integration(j, {
      unique_key: "mail",
      provider: "google-mail",
      provider_settings: {
        pubsub_audience: "junction-sandbox",
        pubsub_service_account_email: "push@sandbox.iam.gserviceaccount.com",
        pubsub_jwks_url: `${sandbox}/oauth2/v3/certs`,
      },
    });
    const put = (path: string, body: unknown) =>
      fetch(`${sandbox}${path}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await put("/v1/projects/sandbox/topics/gmail", {})).status).toBe(200);
    const subscription = await put("/v1/projects/sandbox/subscriptions/junction", {
      topic: "projects/sandbox/topics/gmail",
      pushConfig: {
        pushEndpoint: webhookUrl,
        oidcToken: { serviceAccountEmail: "push@sandbox.iam.gserviceaccount.com", audience: "junction-sandbox" },
      },
    });
    expect(subscription.status).toBe(200);
    // The sandbox answers as Google does: sending needs gmail.send beyond the default read scope.
    const id = await connectInBrowser(j, "mail", "me@example.org", ["https://www.googleapis.com/auth/gmail.send"]);
    const patched = await j.api("PATCH", "/connection/metadata", {
      connection_id: id,
      provider_config_key: "mail",
      metadata: { emailAddress: "me@example.org" },
    });
    expect(patched.status).toBe(200);
    const proxy = { "provider-config-key": "mail", "connection-id": id };
    const watch = await j.api(
      "POST",
      "/proxy/gmail/v1/users/me/watch",
      { topicName: "projects/sandbox/topics/gmail" },
      proxy,
    );
    expect(watch.status).toBe(200);
    expect(watch.body.historyId).toMatch(/^\d+$/);
    expect(watch.body.expiration).toMatch(/^\d+$/);
    const raw = Buffer.from("To: me@example.org\r\nSubject: Try Junction\r\n\r\nHello").toString("base64url");
    expect((await j.api("POST", "/proxy/gmail/v1/users/me/messages/send", { raw }, proxy)).status).toBe(200);
    const forward = await waitFor("the push forwarded", () => forwardsOf(receiver, "mail")[0]);
    expect(forward).toMatchObject({
      connectionId: id,
      payload: { emailAddress: "me@example.org", subscription: "projects/sandbox/subscriptions/junction" },
    });
    expect(Number(forward.payload.historyId)).toBeGreaterThan(Number(watch.body.historyId));
  });

  test("Outlook: the sandbox's Microsoft sign-in on a tenant, a subscription validated by Junction, an event forwarded", async () => {
    const { j, receiver, sandbox } = await startDemo();
    const webhookUrl = await integration(j, {
      unique_key: "outlook",
      provider: "microsoft-outlook-calendar",
      provider_settings: { tenant: "contoso.example" },
    });
    const id = await connectInBrowser(j, "outlook", "adele@contoso.example");
    const proxy = { "provider-config-key": "outlook", "connection-id": id };
    const subscription = await j.api(
      "POST",
      "/proxy/v1.0/subscriptions",
      {
        changeType: "created,updated,deleted",
        notificationUrl: webhookUrl,
        lifecycleNotificationUrl: webhookUrl,
        resource: "/me/events",
        expirationDateTime: new Date(Date.now() + 3 * 24 * 3_600_000).toISOString(),
        clientState: "a-secret-of-yours",
      },
      proxy,
    );
    expect(subscription.status).toBe(201);
    const event = await j.api(
      "POST",
      "/proxy/v1.0/me/events",
      {
        subject: "Try Junction",
        start: { dateTime: "2026-12-01T10:00:00", timeZone: "UTC" },
        end: { dateTime: "2026-12-01T11:00:00", timeZone: "UTC" },
      },
      proxy,
    );
    expect(event.status).toBe(201);
    const forward = await waitFor("the change forwarded", () => forwardsOf(receiver, "outlook")[0]);
    expect(forward).toMatchObject({
      connectionId: id,
      payload: { subscriptionId: subscription.body.id, changeType: "created", resourceData: { id: event.body.id } },
    });
    expect(new URL(sandbox).origin).not.toBe(new URL(j.url).origin);
  });
});
