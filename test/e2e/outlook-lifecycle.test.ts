import { describe, expect, test } from "bun:test";
import { startWebhookReceiver, type WebhookReceiver } from "../fake-upstream/index.ts";
import { waitFor } from "../support/wait-for.ts";
import { type OAuthWorld, useOAuthWorld } from "./oauth-e2e-kit.ts";
import { activeSubscriptionOf, ADELE, connectCalendar, connectManagedCalendar, realStart } from "./outlook-kit.ts";
import { expectNoSecretsLogged, forwardsOf, registryOf } from "./push-stories-kit.ts";

// Graph's lifecycle notifications end to end: sent by the Graph fake to the
// integration's webhook URL, received (202), queued, and handed by the inbound worker to the channel
// service's HandleChannelLifecycle. Script model: the customer is told; managed: Junction acts.

const world = useOAuthWorld();
const MINUTE = 60_000;

/** The `channel` webhooks of one operation for the connection. */
const channelWebhooks = (receiver: WebhookReceiver, operation: string, connectionId: string) =>
  receiver.received
    .map((r) => JSON.parse(r.body) as Record<string, unknown>)
    .filter((b) => b.type === "channel" && b.operation === operation && b.connectionId === connectionId);

/** Sends a lifecycle notification from the fake and waits for Junction's answer to it (202). */
async function lifecycle(
  w: OAuthWorld,
  subscriptionId: string,
  event: "reauthorizationRequired" | "subscriptionRemoved",
) {
  const before = w.fake.state.graphNotificationsSent.filter((a) => a.meta.kind === "lifecycle").length;
  w.fake.sendGraphLifecycle(subscriptionId, event);
  const sent = await w.fake.awaitGraphNotifications(before + 1, undefined, (a) => a.meta.kind === "lifecycle");
  expect(sent.at(-1)).toMatchObject({ status: 202, meta: { events: [event], subscriptionIds: [subscriptionId] } });
}

/** The fake's view of one subscription. */
const upstream = (w: OAuthWorld, id: string) => w.fake.state.graphSubscriptions.find((s) => s.id === id);

describe("Graph lifecycle notifications", () => {
  test("script model: the customer is told of both; the removed subscription is stopped; nothing forwarded", async () => {
    const w = await world(realStart());
    const receiver = startWebhookReceiver();
    try {
      const { connectionId, subscriptionId, created } = await connectCalendar(w, receiver);
      await waitFor("the subscription in the registry", async () => (await registryOf(w.j, connectionId)).length > 0);

      await lifecycle(w, subscriptionId, "reauthorizationRequired");
      const [reauth] = await waitFor("the reauthorization_required webhook", () => {
        const got = channelWebhooks(receiver, "reauthorization_required", connectionId);
        return got.length > 0 ? got : null;
      });
      expect(reauth).toMatchObject({
        from: "junction",
        providerConfigKey: "outlook",
        managed: false,
        reason: "reauthorization_required",
        channel: { id: subscriptionId },
      });
      // The customer's scripts own the subscription: Junction neither renews nor stops it.
      expect(await registryOf(w.j, connectionId)).toEqual([[subscriptionId, "active"]]);
      expect(upstream(w, subscriptionId)?.state).toBe("active");

      await lifecycle(w, subscriptionId, "subscriptionRemoved");
      const [removed] = await waitFor("the removed webhook", () => {
        const got = channelWebhooks(receiver, "removed", connectionId);
        return got.length > 0 ? got : null;
      });
      expect(removed).toMatchObject({ managed: false, reason: "removed", channel: { id: subscriptionId } });
      expect(await registryOf(w.j, connectionId)).toEqual([[subscriptionId, "stopped"]]);
      expect(w.fake.state.graphSubscriptions.map((s) => [s.id, s.state])).toEqual([[subscriptionId, "removed"]]);

      // Lifecycle notifications are about the channel, not the calendar: no forward, and no secret anywhere.
      expect(forwardsOf(receiver, "outlook")).toEqual([]);
      const clientState = String(created.outlookClientState);
      expect(receiver.received.some((r) => r.body.includes(clientState))).toBe(false);
      expectNoSecretsLogged(w.j, [clientState]);
    } finally {
      await receiver.stop();
    }
  }, 60_000);

  test("managed: reauthorization renews in place (PATCH); removal recreates, one subscription active", async () => {
    const w = await world(realStart());
    const receiver = startWebhookReceiver();
    try {
      const { connectionId, subscriptionId } = await connectManagedCalendar(w, receiver);
      const first = upstream(w, subscriptionId);
      expect(first).toMatchObject({ state: "active", resource: "/me/events" });
      const firstExpiration = first?.expiration ?? 0;

      // A minute on, Graph asks for reauthorization: Junction PATCHes the expiration, the id kept.
      await w.clock.advance(MINUTE);
      await lifecycle(w, subscriptionId, "reauthorizationRequired");
      await waitFor("the renewal on the fake", () => (upstream(w, subscriptionId)?.expiration ?? 0) > firstExpiration);
      expect(upstream(w, subscriptionId)?.expiration).toBe(firstExpiration + MINUTE);
      expect(w.fake.state.graphSubscriptions).toHaveLength(1);
      expect(await registryOf(w.j, connectionId)).toEqual([[subscriptionId, "active"]]);
      expect(channelWebhooks(receiver, "reauthorization_required", connectionId)).toEqual([]);

      // Graph removes it: marked stopped, the customer told, a new subscription made; exactly one active.
      await lifecycle(w, subscriptionId, "subscriptionRemoved");
      const newId = await activeSubscriptionOf(w, connectionId, subscriptionId);
      expect(upstream(w, newId)?.state).toBe("active");
      expect(w.fake.state.graphSubscriptions.filter((s) => s.state === "active").map((s) => s.id)).toEqual([newId]);
      const channels = await registryOf(w.j, connectionId);
      expect(channels.filter(([, state]) => state === "active").map(([id]) => id)).toEqual([newId]);
      expect(channels).toContainEqual([subscriptionId, "stopped"]);
      await waitFor("the removed webhook", () => channelWebhooks(receiver, "removed", connectionId)[0]);
      expect(channelWebhooks(receiver, "removed", connectionId)[0]).toMatchObject({ managed: true });

      // Changes on the new subscription reach the connection; nothing was forwarded for the lifecycle.
      expect(forwardsOf(receiver, "outlook")).toEqual([]);
      w.fake.createGraphEvent(ADELE);
      const forward = await waitFor("a change on the new subscription", () => forwardsOf(receiver, "outlook")[0]);
      expect(forward).toMatchObject({ connectionId, payload: { subscriptionId: newId, changeType: "created" } });
    } finally {
      await receiver.stop();
    }
  }, 60_000);
});
