import { expect } from "bun:test";
import type { WebhookReceiver } from "../fake-upstream/index.ts";
import { waitFor } from "../support/wait-for.ts";
import type { OAuthWorld } from "./oauth-e2e-kit.ts";
import { createIntegration, deployTemplates, metadataOf, registryOf, testClient } from "./push-stories-kit.ts";

// Shared by the Outlook tests: the integration on a tenant, a user signed in through the
// fake identity platform, and the subscription made for the connection (by the templates or by Junction).

export const ADELE = "adele@contoso.example";
export const TENANT = "contoso.example";
export const DAY = 24 * 3_600_000;
/**
 * Scripts compute expiries with the sandbox's real-time `Date` while the fake's Graph checks them by the
 * manual clock (at most 10,080 minutes ahead): the clock starts at the real time so both agree.
 */
export const realStart = () => ({ clockStartMs: Date.now() });

/** The Outlook integration on a tenant, pointing at the fake, the customer's receiver registered; its webhook URL. */
async function outlookIntegration(w: OAuthWorld, receiver: WebhookReceiver, managed: boolean): Promise<string> {
  const { j, fake } = w;
  const webhookUrl = await createIntegration(
    j,
    {
      unique_key: "outlook",
      provider: "microsoft-outlook-calendar",
      credentials: testClient(["offline_access", "openid", "email", "User.Read", "Calendars.Read"]),
      upstream_overrides: {
        base_url: fake.url,
        authorization_url: fake.endpoints.microsoftAuthorizationUrl,
        token_url: fake.endpoints.microsoftTokenUrl,
      },
      ...(managed ? { managed_channels: true } : {}),
    },
    { tenant: TENANT },
  );
  expect((await j.api("PUT", "/webhook-settings", { endpoints: [receiver.url] })).status).toBe(200);
  return webhookUrl;
}

/** Signs Adele in through the fake on the integration's tenant; the new connection's id. */
async function signIn(w: OAuthWorld): Promise<string> {
  const session = await w.session({ end_user: { id: "user-1", email: ADELE }, allowed_integrations: ["outlook"] });
  const start = await w.start("outlook", session);
  const location = start.headers.get("location") ?? "";
  expect(start.status).toBe(302);
  expect(new URL(location).pathname).toBe(`/${TENANT}/oauth2/v2.0/authorize`);
  const page = await w.callback(await w.fake.microsoftAuthorize(location));
  expect(page.code).toBe("connected");
  const [connectionId] = await w.connectionIds("outlook");
  if (!connectionId) throw new Error("no connection");
  return connectionId;
}

/** The script model: the three Outlook templates deployed, one connection, its subscription in the metadata. */
export async function connectCalendar(w: OAuthWorld, receiver: WebhookReceiver) {
  const webhookUrl = await outlookIntegration(w, receiver, false);
  await deployTemplates(w.j, "microsoft-outlook-calendar", "outlook");
  const connectionId = await signIn(w);
  const metadata = metadataOf(w.j, "outlook", connectionId);
  const created = await metadata(
    "the subscription in the metadata",
    (m) => typeof m.outlookSubscriptionId === "string",
  );
  return { webhookUrl, connectionId, metadata, subscriptionId: created.outlookSubscriptionId as string, created };
}

/** Managed channels: no script; one connection, the subscription Junction made for it once in the registry. */
export async function connectManagedCalendar(w: OAuthWorld, receiver: WebhookReceiver) {
  const webhookUrl = await outlookIntegration(w, receiver, true);
  const connectionId = await signIn(w);
  const subscriptionId = await activeSubscriptionOf(w, connectionId, "");
  return { webhookUrl, connectionId, subscriptionId };
}

/** The connection's one active subscription in the registry once it is not `other`; fails on two. */
export async function activeSubscriptionOf(w: OAuthWorld, connectionId: string, other: string): Promise<string> {
  return waitFor(`an active subscription other than "${other}"`, async () => {
    const active = (await registryOf(w.j, connectionId)).filter(([, state]) => state === "active");
    if (active.length > 1) throw new Error(`two active subscriptions: ${active.map(([id]) => id).join(", ")}`);
    return active[0] && active[0][0] !== other ? active[0][0] : null;
  });
}
