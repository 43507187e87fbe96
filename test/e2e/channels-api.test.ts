import { describe, expect, test } from "bun:test";
import { waitFor } from "../support/wait-for.ts";
import { DAY, integration, useChannelsWorld } from "./channels-kit.ts";

// GET /channels: the channel registry, fed by the watch and stop calls made through Junction and by
// the upstream's notifications.

const world = useChannelsWorld();
const HOUR = 3_600_000;

describe("GET /channels", () => {
  test("lists channels created and stopped through the proxy, with their notifications counted", async () => {
    const w = await world();
    await w.connect("conn-a", "alice@example.com");
    const watched = await w.watch("conn-a", "chan-a1");
    // The upstream's "sync" notification reached Junction, which records its message number.
    await w.receiver.waitFor(1);
    w.fake.createEvent("alice@example.com");
    await w.receiver.waitFor(2);
    const listed = await w.registry("chan-a1");
    expect(listed).toMatchObject({
      id: "chan-a1",
      resource_id: watched.resourceId,
      resource_uri: watched.resourceUri,
      provider_config_key: "cal",
      connection_id: "conn-a",
      state: "active",
      expiration: new Date(w.clock.now() + 7 * DAY).toISOString(),
      created_at: new Date(w.clock.now()).toISOString(),
      stopped_at: null,
      expiry_warned_at: null,
      last_message_number: 2,
    });
    // The token of the channel, if any, is never shown.
    expect(Object.keys(listed ?? {})).not.toContain("token");
  });

  test("filters by integration, connection, state and expiring_within, together", async () => {
    const w = await world();
    await integration(w, "cal-2");
    await w.connect("conn-a", "alice@example.com");
    await w.connect("conn-b", "bob@example.com");
    await w.connect("conn-c", "carol@example.com", "cal-2");
    const t0 = w.clock.now();
    await w.watch("conn-a", "soon", { expiration: t0 + 12 * HOUR });
    await w.clock.advance(1000);
    await w.watch("conn-a", "later");
    await w.clock.advance(1000);
    await w.watch("conn-b", "bob-1", { expiration: t0 + 20 * HOUR });
    await w.clock.advance(1000);
    await w.watch("conn-c", "other-integration", { key: "cal-2", expiration: t0 + HOUR });
    const stop = await w.j.api(
      "POST",
      "/proxy/calendar/v3/channels/stop",
      { id: "bob-1", resourceId: w.upstream("bob-1")?.resourceId },
      { "provider-config-key": "cal", "connection-id": "conn-b" },
    );
    expect(stop.status).toBe(204);
    const ids = async (query: string) => {
      const res = await w.j.api("GET", `/channels?${query}`);
      expect(res.status).toBe(200);
      return (res.body.data as { id: string }[]).map((c) => c.id);
    };
    // Newest first.
    expect(await ids("integration=cal")).toEqual(["bob-1", "later", "soon"]);
    expect(await ids("connection=conn-a")).toEqual(["later", "soon"]);
    expect(await ids("integration=cal-2")).toEqual(["other-integration"]);
    await waitFor("the stop in the registry", async () => (await ids("state=stopped")).length === 1);
    expect(await ids("state=stopped")).toEqual(["bob-1"]);
    expect(await ids("integration=cal&state=active")).toEqual(["later", "soon"]);
    // Expiring soon: active channels with a known expiration within the window, at Junction's clock.
    expect(await ids("state=active&expiring_within=1d")).toEqual(["other-integration", "soon"]);
    expect(await ids("integration=cal&state=active&expiring_within=1d")).toEqual(["soon"]);
    expect(await ids("state=active&expiring_within=30m")).toEqual([]);
    await w.clock.advance(11 * HOUR);
    expect(await ids("state=active&expiring_within=90m")).toEqual(["soon"]);
    // Past its expiration, a channel reads as expired.
    await w.clock.advance(2 * HOUR);
    expect(await ids("state=expired")).toEqual(["other-integration", "soon"]);
    expect(await ids("state=active")).toEqual(["later"]);
  });

  test("refuses filters it does not understand with invalid_query_params", async () => {
    const w = await world();
    for (const query of [
      "state=sleeping",
      "expiring_within=1",
      "expiring_within=1w",
      "expiring_within=0d",
      "expiring_within=367d",
      "expiring_within=-1d",
      "bogus=1",
    ]) {
      const res = await w.j.api("GET", `/channels?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_query_params");
    }
  });
});
