import { expect } from "bun:test";
import type { WebhookReceiver } from "../fake-upstream/index.ts";
import type { OAuthWorld } from "./oauth-e2e-kit.ts";
import { createIntegration, deployTemplates, metadataOf, testClient } from "./push-stories-kit.ts";

// Shared by the Gmail tests: the mail integration with push checks on, the fake's
// Pub/Sub push subscription pointing at its webhook URL, and one connection.

export const ALICE = "alice@example.com";
export const TOPIC = "projects/fake-project/topics/gmail";
export const SUBSCRIPTION = "projects/fake-project/subscriptions/gmail-push";
const AUDIENCE = "https://junction.test/gmail-push";
const SERVICE_ACCOUNT = "gmail-push@fake-project.iam.gserviceaccount.com";

/**
 * The mail integration with push checks on, the push subscription, one connection. Script model: the
 * templates deployed (the topic edited in, as their README says); managed: `managed_channels`, no script.
 */
export async function connectMailbox(w: OAuthWorld, receiver: WebhookReceiver, options: { managed?: boolean } = {}) {
  const { j, fake } = w;
  const webhookUrl = await createIntegration(
    j,
    {
      unique_key: "mail",
      provider: "google-mail",
      credentials: testClient(["openid", "email", "https://www.googleapis.com/auth/gmail.readonly"]),
      upstream_overrides: {
        base_url: fake.url,
        authorization_url: fake.endpoints.authorizationUrl,
        token_url: fake.endpoints.tokenUrl,
      },
      ...(options.managed ? { managed_channels: true } : {}),
    },
    {
      pubsub_audience: AUDIENCE,
      pubsub_service_account_email: SERVICE_ACCOUNT,
      pubsub_jwks_url: fake.endpoints.jwksUrl,
      pubsub_topic: TOPIC,
    },
  );
  expect((await j.api("PUT", "/webhook-settings", { endpoints: [receiver.url] })).status).toBe(200);
  if (!options.managed) {
    await deployTemplates(j, "google-mail", "mail", (source) =>
      source.replace("projects/YOUR-PROJECT/topics/YOUR-TOPIC", TOPIC),
    );
  }
  fake.createPushSubscription({
    topic: TOPIC,
    pushEndpoint: webhookUrl,
    audience: AUDIENCE,
    serviceAccountEmail: SERVICE_ACCOUNT,
  });
  const session = await w.session({ end_user: { id: "user-1", email: ALICE }, allowed_integrations: ["mail"] });
  const page = await w.callback(await w.authorize("mail", session));
  expect(page.code).toBe("connected");
  const [connectionId] = await w.connectionIds("mail");
  if (!connectionId) throw new Error("no connection");
  return { connectionId, metadata: metadataOf(j, "mail", connectionId) };
}
