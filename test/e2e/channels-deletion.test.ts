import { describe, expect, test } from "bun:test";
import { useChannelsWorld } from "./channels-kit.ts";

// After a connection's deletion, no channel of it is left sending: Junction stops the ones still
// active itself, before the record (and its credentials) go (spec: lifecycle, "A
// channel that is not stopped when its connection is deleted may continue to send notifications").

const world = useChannelsWorld();
const ALICE = "alice@example.com";
const BOB = "bob@example.com";

describe("deleting a connection", () => {
  test("without a pre-deletion script, its channels are stopped upstream and nothing more arrives", async () => {
    const w = await world();
    await w.connect("conn-a", ALICE);
    await w.connect("conn-b", BOB);
    await w.watch("conn-a", "alice-1");
    await w.watch("conn-a", "alice-2");
    await w.watch("conn-b", "bob-1");
    await w.receiver.waitFor(3);
    w.fake.createEvent(ALICE);
    await w.receiver.waitFor(5); // "exists" on both of Alice's channels

    const res = await w.j.api("DELETE", "/connection/conn-a?provider_config_key=cal");
    expect(res.status).toBeLessThan(300);
    expect(w.upstream("alice-1")?.state).toBe("stopped");
    expect(w.upstream("alice-2")?.state).toBe("stopped");
    expect(w.upstream("bob-1")?.state).toBe("active");
    expect((await w.registry("alice-1"))?.state).toBe("stopped");
    expect((await w.registry("alice-2"))?.state).toBe("stopped");
    expect((await w.registry("bob-1"))?.state).toBe("active");
    expect((await w.j.api("GET", "/connection/conn-a?provider_config_key=cal")).status).toBe(404);

    await w.fake.settleNotifications();
    const before = w.receiver.received.length;
    w.fake.createEvent(ALICE);
    expect(w.fake.changeCalendar(ALICE)).toBe(0);
    await w.fake.settleNotifications();
    expect(w.receiver.received.length).toBe(before);
    // Bob's channel still works.
    w.fake.createEvent(BOB);
    await w.receiver.waitFor(before + 1);
  });

  test("a stop that fails never blocks the deletion", async () => {
    const w = await world();
    await w.connect("conn-a", ALICE);
    await w.watch("conn-a", "alice-1");
    // The user revoked access upstream: the stop answers 401 and the refresh fails.
    w.fake.revokeAllFor(ALICE);
    const res = await w.j.api("DELETE", "/connection/conn-a?provider_config_key=cal");
    expect(res.status).toBeLessThan(300);
    expect((await w.j.api("GET", "/connection/conn-a?provider_config_key=cal")).status).toBe(404);
    expect(w.j.logLines.some((l) => l.includes('"msg":"channel not stopped"') && l.includes("alice-1"))).toBe(true);
    // The registry does not pretend: the channel is still active until it expires.
    expect((await w.registry("alice-1"))?.state).toBe("active");
  });

  test("a connection without channels, or of a provider without channels, is deleted as before", async () => {
    const w = await world();
    await w.connect("conn-quiet", ALICE);
    await w.j.api("POST", "/integrations", { unique_key: "mail", provider: "google-mail" });
    await w.j.api("POST", "/connections", {
      provider_config_key: "mail",
      connection_id: "conn-mail",
      credentials: { type: "OAUTH2", access_token: "unused-token" },
    });
    for (const [id, key] of [
      ["conn-quiet", "cal"],
      ["conn-mail", "mail"],
    ]) {
      expect((await w.j.api("DELETE", `/connection/${id}?provider_config_key=${key}`)).status).toBeLessThan(300);
    }
    expect(w.fake.requestCount("/calendar/v3/channels/stop")).toBe(0);
    expect(w.j.logLines.filter((l) => l.includes("channels of a deleted connection not stopped"))).toEqual([]);
  });
});
