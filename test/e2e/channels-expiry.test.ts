import { describe, expect, test } from "bun:test";
import { waitFor } from "../support/wait-for.ts";
import { DAY, useChannelsWorld, webhooksOfType } from "./channels-kit.ts";

// A channel that expires within a day with no successor means the renewal is not running and
// notifications are about to stop (spec: Limits, "Channel renewal: not automatic"). Junction warns
// once, in its logs and with a webhook to the customer, and records expired channels.

const world = useChannelsWorld();
const HOUR = 3_600_000;
/** Each test moves the clock by days, firing every timer on the way: give a loaded machine time. */
const SLOW = 30_000;
const ALICE = "alice@example.com";

describe("channel expiry", () => {
  test(
    "warns once, by log and signed webhook, a day before an unrenewed channel expires",
    async () => {
      const w = await world();
      await w.connect("conn-a", ALICE);
      const expiration = w.clock.now() + 7 * DAY;
      const watched = await w.watch("conn-a", "unrenewed");
      await w.clock.advance(5 * DAY + 23 * HOUR);
      expect(webhooksOfType(w.receiver, "channel")).toEqual([]);

      await w.clock.advance(2 * HOUR);
      await waitFor("the expiry warning", () => webhooksOfType(w.receiver, "channel").length === 1);
      const [warning] = webhooksOfType(w.receiver, "channel");
      expect(warning).toMatchObject({
        from: "junction",
        type: "channel",
        operation: "expiring",
        providerConfigKey: "cal",
        connectionId: "conn-a",
        channel: {
          id: "unrenewed",
          resourceId: watched.resourceId,
          resourceUri: watched.resourceUri,
          expiration: new Date(expiration).toISOString(),
          expirationMs: expiration,
        },
      });
      expect(warning?.expiresInMs).toBeGreaterThan(0);
      expect(warning?.expiresInMs).toBeLessThanOrEqual(DAY);
      // Signed like every webhook Junction sends, and in the delivery log.
      const delivery = w.receiver.received.find((d) => d.body.includes('"operation":"expiring"'));
      expect(delivery?.headers["webhook-signature"]).toStartWith("v1,");
      const logged = await w.j.api("GET", "/webhook-messages?type=channel");
      expect(logged.body.data).toHaveLength(1);
      expect(w.j.logLines.filter((l) => l.includes("expires within a day and has no successor"))).toHaveLength(1);
      expect((await w.registry("unrenewed"))?.expiry_warned_at).not.toBeNull();

      // Once: later sweeps, up to and past the expiration, say nothing more.
      await w.clock.advance(DAY);
      await w.fake.settleNotifications();
      expect(webhooksOfType(w.receiver, "channel")).toHaveLength(1);
      // Past its expiration, the sweep writes the state (the list reads it either way).
      const expired = await w.j.api("GET", "/channels?state=expired");
      expect(expired.body.data.map((c: { id: string }) => c.id)).toEqual(["unrenewed"]);
      await waitFor("the expiry recorded", () => w.j.logLines.some((l) => l.includes('"msg":"channel expired"')));
    },
    SLOW,
  );

  test(
    "a channel renewed in time is not warned about; its successor is, if it is not renewed",
    async () => {
      const w = await world();
      await w.connect("conn-a", ALICE);
      const old = await w.watch("conn-a", "old");
      await w.clock.advance(5 * DAY);
      // The renewal: a new channel first, then the old one stopped (spec: Customer-side scripts).
      await w.watch("conn-a", "new");
      await w.clock.advance(HOUR);
      const stop = await w.j.api(
        "POST",
        "/proxy/calendar/v3/channels/stop",
        { id: "old", resourceId: old.resourceId },
        { "provider-config-key": "cal", "connection-id": "conn-a" },
      );
      expect(stop.status).toBe(204);
      await w.clock.advance(DAY + HOUR);
      await w.fake.settleNotifications();
      expect(webhooksOfType(w.receiver, "channel")).toEqual([]);

      // Without the next renewal, the new channel gets its warning a day before its own expiration.
      await w.clock.advance(5 * DAY);
      await waitFor("the warning about the new channel", () => webhooksOfType(w.receiver, "channel").length === 1);
      expect(webhooksOfType(w.receiver, "channel")[0]?.channel.id).toBe("new");
    },
    SLOW,
  );

  test(
    "a renewal whose old channel was not stopped still counts: the old one is not warned about",
    async () => {
      const w = await world();
      await w.connect("conn-a", ALICE);
      await w.watch("conn-a", "old");
      await w.clock.advance(5 * DAY + 12 * HOUR);
      await w.watch("conn-a", "new");
      await w.clock.advance(DAY);
      await w.fake.settleNotifications();
      expect(webhooksOfType(w.receiver, "channel")).toEqual([]);
      expect((await w.registry("old"))?.expiry_warned_at).toBeNull();
    },
    SLOW,
  );
});
