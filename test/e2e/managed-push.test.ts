import { describe, expect, test } from "bun:test";
import { startWebhookReceiver } from "../fake-upstream/index.ts";
import { waitFor } from "../support/wait-for.ts";
import { ALICE, connectMailbox, TOPIC } from "./gmail-kit.ts";
import { CLIENT, type OAuthWorld, useOAuthWorld } from "./oauth-e2e-kit.ts";
import { ADELE, connectManagedCalendar, DAY } from "./outlook-kit.ts";
import { expectNoSecretsLogged, forwardsOf, registryExpirationOf, registryOf } from "./push-stories-kit.ts";

// Managed channels against the real fakes: an embedded Junction with
// `managed_channels: true` on a Gmail integration (its Pub/Sub push subscription pointing at the
// integration's webhook URL, OIDC checks on) and on an Outlook one. No script is deployed: Junction
// watches or subscribes for a new connection, forwards its changes, renews before expiry as the
// injected clock advances, and stops at deletion.

const world = useOAuthWorld();
/** No script ran: the integration has none. */
async function expectNoScripts(w: OAuthWorld, key: string): Promise<void> {
  expect((await w.j.api("GET", `/scripts/runs?provider_config_key=${key}`)).body.data).toEqual([]);
}

describe("managed channels against the fakes", () => {
  test("Gmail: watched without a script, a signed push forwarded, watched again before expiry, stopped at deletion", async () => {
    const w = await world();
    const { j, fake, clock } = w;
    const receiver = startWebhookReceiver();
    try {
      const { connectionId } = await connectMailbox(w, receiver, { managed: true });
      await waitFor("the managed watch on the fake", () => fake.state.gmailWatches.length === 1);
      expect(fake.state.gmailWatches[0]).toMatchObject({ email: ALICE, topicName: TOPIC, state: "active" });
      const firstExpiration = fake.state.gmailWatches[0]?.expiration ?? 0;
      expect(firstExpiration).toBe(clock.now() + 7 * DAY);
      // A managed watch gets a fresh channel id of Junction's (Gmail names none).
      const [[channel = ""] = []] = await waitFor("the watch in the registry", async () => {
        const channels = await registryOf(j, connectionId);
        return channels.length > 0 ? channels : null;
      });
      expect(await registryOf(j, connectionId)).toEqual([[channel, "active"]]);

      // A mail arrives: the push is signed by the fake, its token checked, forwarded to the connection.
      const mail = fake.receiveMail(ALICE);
      const [push] = await fake.awaitPushes(1);
      expect(push).toMatchObject({ status: 200, meta: { messageId: mail.messageId } });
      const forward = await waitFor("the push forwarded", () => forwardsOf(receiver, "mail")[0]);
      expect(forward).toMatchObject({ connectionId, payload: { emailAddress: ALICE, messageId: mail.messageId } });

      // A day on (6 days before the 7-day expiry): Junction watches again; the connection's one watch extended.
      await clock.advance(DAY);
      await waitFor("the watch renewed on the fake", () => fake.state.gmailWatches.length === 2);
      expect(fake.state.gmailWatches.map((v) => v.state)).toEqual(["stopped", "active"]);
      expect(fake.state.gmailWatches[1]?.expiration).toBe(clock.now() + 7 * DAY);
      await waitFor(
        "the registry's new expiration",
        async () => (await registryExpirationOf(j, connectionId, channel)) === clock.now() + 7 * DAY,
      );
      expect(await registryOf(j, connectionId)).toEqual([[channel, "active"]]);

      // Deleted: Junction stops the watch; a new mail publishes nothing.
      expect((await j.api("DELETE", `/connection/${connectionId}?provider_config_key=mail`)).status).toBeLessThan(300);
      await waitFor("the watch stopped on the fake", () => fake.state.gmailWatches.every((v) => v.state === "stopped"));
      await waitFor("the registry's watch stopped", async () =>
        (await registryOf(j, connectionId)).every(([, state]) => state === "stopped"),
      );
      expect(fake.receiveMail(ALICE).messageId).toBe("");
      await expectNoScripts(w, "mail");
      expectNoSecretsLogged(j, [CLIENT.clientSecret, ...fake.state.accessTokens.keys()]);
    } finally {
      await receiver.stop();
    }
  }, 60_000);

  test("Outlook: subscribed without a script, a change forwarded, PATCHed before expiry, deleted at deletion", async () => {
    const w = await world();
    const { j, fake, clock } = w;
    const receiver = startWebhookReceiver();
    try {
      const { connectionId, subscriptionId, webhookUrl } = await connectManagedCalendar(w, receiver);
      expect(fake.state.graphValidations.map((v) => [v.url, v.status])).toEqual([[webhookUrl, 200]]);
      const upstream = () => fake.state.graphSubscriptions.find((s) => s.id === subscriptionId);
      expect(upstream()).toMatchObject({ state: "active", notificationUrl: webhookUrl });
      const firstExpiration = upstream()?.expiration ?? 0;

      fake.createGraphEvent(ADELE, { subject: "Standup" });
      const forward = await waitFor("the change forwarded", () => forwardsOf(receiver, "outlook")[0]);
      expect(forward).toMatchObject({ connectionId, payload: { subscriptionId, changeType: "created" } });

      // Six days on (a day before Graph's 10,080-minute limit): renewed in place, the id kept.
      await clock.advance(6 * DAY);
      await waitFor("the subscription extended on the fake", () => (upstream()?.expiration ?? 0) > firstExpiration);
      expect(fake.state.graphSubscriptions).toHaveLength(1);
      expect(upstream()?.state).toBe("active");
      await waitFor(
        "the registry's new expiration",
        async () => (await registryExpirationOf(j, connectionId, subscriptionId)) === upstream()?.expiration,
      );
      // Past the first expiration, the subscription still sends and is still active in the registry.
      await clock.advance(2 * DAY);
      expect(upstream()?.state).toBe("active");
      expect(await registryOf(j, connectionId)).toEqual([[subscriptionId, "active"]]);

      expect((await j.api("DELETE", `/connection/${connectionId}?provider_config_key=outlook`)).status).toBeLessThan(
        300,
      );
      await waitFor("the subscription deleted on the fake", () => upstream()?.state === "deleted");
      await waitFor("the registry's subscription stopped", async () =>
        (await registryOf(j, connectionId)).every(([, state]) => state === "stopped"),
      );
      await expectNoScripts(w, "outlook");
    } finally {
      await receiver.stop();
    }
  }, 60_000);
});
