import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { startWebhookReceiver } from "../fake-upstream/index.ts";
import { waitFor } from "../support/wait-for.ts";
import { CLIENT, useOAuthWorld } from "./oauth-e2e-kit.ts";
import { ADELE, connectCalendar, DAY, realStart, TENANT } from "./outlook-kit.ts";
import { expectNoSecretsLogged, forwardsOf, registryExpirationOf, registryOf, scriptRuns } from "./push-stories-kit.ts";

// The Outlook story, as the calendar story: the three Outlook templates
// deployed, a user signs in through the fake identity platform on the integration's tenant,
// post-connection-creation creates a Graph subscription (Junction answers the fake's validation request),
// an event change is posted as a batch, answered 202 and forwarded per item; forged and unknown items are
// dropped, an oversized batch refused, `missed` forwarded; the daily renewal extends the subscription and
// deleting the connection deletes it.

const world = useOAuthWorld();
/** What the templates ask for: Graph's 10,080 minutes less an hour. */
const LIFETIME = (10_080 - 60) * 60_000;
const REAL_START = realStart();

describe("the Outlook story", () => {
  test("tenant sign-in → subscription validated → changes forwarded per item → renewal → deletion", async () => {
    const w = await world(REAL_START);
    const { j, fake, clock } = w;
    const receiver = startWebhookReceiver();
    try {
      const { webhookUrl, connectionId, subscriptionId, created } = await connectCalendar(w, receiver);
      const runs = scriptRuns(j, "outlook");

      // 1. Signed in on the integration's tenant; the subscription was validated by Junction, then created.
      expect(fake.state.microsoftTokenRequests.map((r) => [r.grantType, r.tenant, r.ok])).toEqual([
        ["authorization_code", TENANT, true],
      ]);
      expect(fake.state.graphValidations).toHaveLength(1);
      expect(fake.state.graphValidations[0]).toMatchObject({ url: webhookUrl, status: 200, ok: true });
      const [subscription] = fake.state.graphSubscriptions;
      expect(fake.state.graphSubscriptions).toHaveLength(1);
      expect(subscription).toMatchObject({
        id: subscriptionId,
        state: "active",
        resource: "/me/events",
        changeType: "created,updated,deleted",
        notificationUrl: webhookUrl,
        lifecycleNotificationUrl: webhookUrl,
        clientState: created.outlookClientState,
      });
      // Recorded in the channel registry from the proxied creation (how its notifications find the connection).
      await waitFor("the subscription in the registry", async () => (await registryOf(j, connectionId)).length > 0);
      expect(await registryOf(j, connectionId)).toEqual([[subscriptionId, "active"]]);
      // Its clientState is stored sealed, with a digest: the row holds no plaintext (checked below by the
      // forwarded and the forged items).
      const db = new Database(join(j.dataDir, "junction.sqlite"), { readonly: true });
      const rows = db.query("SELECT token, token_digest FROM channels WHERE id = ?").all(subscriptionId);
      db.close();
      expect(rows).toEqual([
        { token: expect.stringMatching(/^enc:v2:/), token_digest: expect.stringMatching(/^mac:v1:/) },
      ]);
      expect(JSON.stringify(rows)).not.toContain(String(created.outlookClientState));
      // Made by the script's real-time clock, which started with the manual one (seconds apart at most).
      expect(Math.abs((subscription?.expiration ?? 0) - (clock.now() + LIFETIME))).toBeLessThan(60_000);

      // 2. An event is created in Outlook: one batch, answered 202, forwarded with the item (no clientState).
      const event = fake.createGraphEvent(ADELE, { subject: "Standup" });
      const [batch] = await fake.awaitGraphNotifications(1);
      expect(batch).toMatchObject({ status: 202, meta: { kind: "change", events: ["created"] } });
      const forwards = () => forwardsOf(receiver, "outlook");
      await waitFor("the change forwarded", () => forwards().length >= 1);
      const first = forwards()[0];
      // Copied first: Bun's toMatchObject leaves its asymmetric matchers in the object it checked.
      const item = { ...structuredClone(first?.payload), clientState: created.outlookClientState };
      expect(first).toMatchObject({
        from: "microsoft-outlook-calendar",
        connectionId,
        payload: {
          subscriptionId,
          changeType: "created",
          resource: expect.stringMatching(/^Users\/[^/]+\/Events\//),
          resourceData: { id: event.id, "@odata.etag": event["@odata.etag"] },
          subscriptionExpirationDateTime: new Date(subscription?.expiration ?? 0).toISOString(),
          tenantId: expect.any(String),
        },
      });
      expect(first?.payload).not.toHaveProperty("clientState");

      // 3. One batch of two items is forwarded as two webhooks.
      fake.sendGraphBatch(webhookUrl, [
        { ...item, changeType: "updated" },
        { ...item, changeType: "deleted" },
      ]);
      await waitFor("both items forwarded", () => forwards().length >= 3);
      // The items of one batch are forwarded each on its own, in no promised order.
      const changeTypes = () => forwards().map((f) => String(f.payload.changeType));
      expect(changeTypes().slice(1).sort()).toEqual(["deleted", "updated"]);

      // 4. A forged clientState and an unknown subscription: acknowledged (Graph must not resend), dropped, logged.
      fake.sendGraphNotification(subscriptionId, { clientState: "forged-client-state" });
      fake.sendGraphNotification(subscriptionId, { subscriptionId: randomUUID() });
      const answered = await fake.awaitGraphNotifications(4);
      expect(answered.slice(2).map((a) => a.status)).toEqual([202, 202]);
      fake.updateGraphEvent(ADELE, event.id, { subject: "Standup (moved)" });
      await waitFor("the next change forwarded", () => forwards().length >= 4);
      await fake.settleGraphNotifications();
      expect(forwards().map((f) => f.payload.subscriptionId)).toEqual(Array(4).fill(subscriptionId));
      expect(changeTypes().sort()).toEqual(["created", "deleted", "updated", "updated"]);
      const logs = j.logLines.join("\n");
      expect(logs).toContain("does not match the channel's");
      expect(logs).toContain("unknown to the registry");
      expect(logs).not.toContain("forged-client-state");

      // 5. `missed`: Graph could not deliver some notifications; forwarded so the app resyncs.
      fake.sendGraphLifecycle(subscriptionId, "missed");
      await waitFor("missed forwarded", () => forwards().some((f) => f.payload.lifecycleEvent === "missed"));
      expect(forwards().filter((f) => f.payload.lifecycleEvent === "missed")).toMatchObject([
        { connectionId, payload: { subscriptionId, lifecycleEvent: "missed" } },
      ]);

      // 6. A day later the renewal sync extends the subscription in place.
      await clock.advance(DAY);
      const renewal = await runs.finished("subscription-renewal");
      expect(renewal).toMatchObject({ status: "succeeded", trigger: "schedule" });
      expect(await runs.logs(renewal.id)).toEqual([`info: renewed Outlook subscription ${subscriptionId}`]);
      const [extended] = fake.state.graphSubscriptions;
      expect(fake.state.graphSubscriptions).toHaveLength(1);
      expect(extended).toMatchObject({ id: subscriptionId, state: "active" });
      // Extended from the script's real now, a day behind the advanced manual clock.
      expect(extended?.expiration).toBeGreaterThan(subscription?.expiration ?? Number.POSITIVE_INFINITY);
      // The proxied PATCH is recorded: the registry holds Graph's new expiration, not the first one.
      await waitFor(
        "the registry's new expiration",
        async () => (await registryExpirationOf(j, connectionId, subscriptionId)) === extended?.expiration,
      );
      expect(await registryOf(j, connectionId)).toEqual([[subscriptionId, "active"]]);

      // 7. The connection is deleted: pre-connection-deletion deletes the subscription; changes go nowhere.
      const deleted = await j.api("DELETE", `/connection/${connectionId}?provider_config_key=outlook`);
      expect(deleted.status).toBeLessThan(300);
      const preDeletion = await runs.finished("pre-connection-deletion");
      expect(await runs.logs(preDeletion.id)).toEqual([`info: deleted Outlook subscription ${subscriptionId}`]);
      expect(fake.state.graphSubscriptions.map((s) => s.state)).toEqual(["deleted"]);
      await waitFor("the registry's subscription stopped", async () =>
        (await registryOf(j, connectionId)).every(([, state]) => state === "stopped"),
      );
      await fake.settleGraphNotifications();
      const sent = fake.state.graphNotificationsSent.length;
      fake.createGraphEvent(ADELE, { subject: "After deletion" });
      await fake.settleGraphNotifications();
      expect(fake.state.graphNotificationsSent).toHaveLength(sent);

      expectNoSecretsLogged(j, [
        CLIENT.clientSecret,
        String(created.outlookClientState),
        ...fake.state.microsoftAccessTokens.keys(),
        ...fake.state.microsoftRefreshTokens.keys(),
      ]);
    } finally {
      await receiver.stop();
    }
  }, 60_000);

  test("a renewal Graph refuses (the subscription lapsed) creates a new subscription, then deletes the old", async () => {
    const w = await world(REAL_START);
    const { j, fake, clock } = w;
    const receiver = startWebhookReceiver();
    try {
      const { connectionId, subscriptionId, metadata } = await connectCalendar(w, receiver);
      await waitFor("the subscription in the registry", async () => (await registryOf(j, connectionId)).length > 0);
      fake.expireGraphSubscription(subscriptionId);
      await clock.advance(DAY);
      const replaced = await metadata("the new subscription", (m) => m.outlookSubscriptionId !== subscriptionId);
      const newId = String(replaced.outlookSubscriptionId);
      const runs = scriptRuns(j, "outlook");
      const renewal = await runs.finished("subscription-renewal");
      expect(renewal).toMatchObject({ status: "succeeded", trigger: "schedule" });
      const logs = await runs.logs(renewal.id);
      expect(logs[0]).toStartWith(`warn: could not renew Outlook subscription ${subscriptionId} (status 404)`);
      expect(logs[1]).toBe(`info: replaced Outlook subscription: ${subscriptionId} → ${newId}`);
      // The old one is gone upstream already: its deletion fails, logged at error level.
      expect(logs[2]).toStartWith(`error: could not delete Outlook subscription ${subscriptionId} (status 404)`);
      expect(fake.state.graphSubscriptions.map((s) => [s.id, s.state])).toEqual([
        [subscriptionId, "expired"],
        [newId, "active"],
      ]);
      await waitFor("the registry to hold the new subscription only", async () => {
        const channels = await registryOf(j, connectionId);
        return (
          channels
            .filter(([, state]) => state === "active")
            .map(([id]) => id)
            .join() === newId
        );
      });
      fake.createGraphEvent(ADELE);
      await waitFor("a change on the new subscription forwarded", () =>
        forwardsOf(receiver, "outlook").some(
          (f) => f.payload.subscriptionId === newId && f.connectionId === connectionId,
        ),
      );
    } finally {
      await receiver.stop();
    }
  }, 60_000);

  test("a batch over the item limit or the body limit is refused with a clear 4xx, nothing forwarded", async () => {
    const w = await world(REAL_START);
    const { fake } = w;
    const receiver = startWebhookReceiver();
    try {
      const { webhookUrl, subscriptionId, created } = await connectCalendar(w, receiver);
      const item = { subscriptionId, clientState: created.outlookClientState, changeType: "updated" };
      fake.sendGraphBatch(
        webhookUrl,
        Array.from({ length: 1001 }, () => item),
      );
      fake.sendGraphBatch(
        webhookUrl,
        Array.from({ length: 5000 }, () => ({ ...item, resource: "x".repeat(200) })),
      );
      const [many, huge] = await fake.awaitGraphNotifications(2);
      expect(many?.status).toBe(400);
      expect(JSON.parse(many?.answer ?? "{}").error).toMatchObject({
        code: "invalid_notification",
        message: expect.stringContaining("holds 1001 items; at most 1000"),
      });
      expect(huge?.status).toBe(413);
      // A good change after them is forwarded, and it is the only one.
      fake.createGraphEvent(ADELE);
      await waitFor("the change forwarded", () => forwardsOf(receiver, "outlook").length >= 1);
      await fake.settleGraphNotifications();
      expect(forwardsOf(receiver, "outlook").map((f) => f.payload.changeType)).toEqual(["created"]);
    } finally {
      await receiver.stop();
    }
  }, 60_000);
});
