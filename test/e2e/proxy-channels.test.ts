import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ChannelState } from "@junction/contracts/channel/v1/channel_service_pb";
import { waitFor } from "../support/wait-for.ts";
import { ALICE, CALENDAR, CONNECTION, MAIL, type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

let h: ProxyHarness;
beforeAll(async () => {
  h = await startProxyHarness();
});
afterAll(async () => {
  await h.close();
});

const DAY = 24 * 3_600_000;
const json = { "content-type": "application/json" };

const channel = async (id: string) =>
  (await h.junction.clients.channel.listChannels({ providerConfigKey: CALENDAR })).channels.find((c) => c.id === id);

describe("proxy: channel calls feed the channel registry", () => {
  test("a watch through /proxy is recorded as an active channel, a stop through /proxy stops it", async () => {
    const expiration = Date.now() + 7 * DAY;
    const watch = await h.proxy("POST", `/calendar/v3/calendars/${encodeURIComponent(ALICE)}/events/watch`, {
      headers: json,
      body: JSON.stringify({
        id: "chan-observed-1",
        type: "web_hook",
        address: `${h.junction.baseUrl}/webhook/env/${CALENDAR}`,
        token: "customer-channel-token",
        expiration: String(expiration),
      }),
    });
    expect(watch.status).toBe(200);
    // The caller still gets the upstream's body, untouched by the copy Junction reads.
    const answer = await watch.json();
    expect(answer).toMatchObject({ kind: "api#channel", id: "chan-observed-1", expiration: String(expiration) });

    const recorded = await waitFor("the watch in the channel registry", () => channel("chan-observed-1"));
    expect(recorded).toMatchObject({
      resourceId: answer.resourceId,
      resourceUri: answer.resourceUri,
      connectionId: CONNECTION,
      providerConfigKey: CALENDAR,
      expirationMs: BigInt(expiration),
      state: ChannelState.ACTIVE,
    });

    const stop = await h.proxy("POST", "/calendar/v3/channels/stop", {
      headers: json,
      body: JSON.stringify({ id: "chan-observed-1", resourceId: answer.resourceId }),
    });
    expect(stop.status).toBe(204);
    await waitFor(
      "the channel to be stopped",
      async () => (await channel("chan-observed-1"))?.state === ChannelState.STOPPED,
    );
  });

  test("a watch the upstream refuses is not recorded", async () => {
    const refused = await h.proxy("POST", `/calendar/v3/calendars/${encodeURIComponent(ALICE)}/events/watch`, {
      headers: json,
      body: JSON.stringify({ id: "bad id with spaces", type: "web_hook", address: "https://example.test/x" }),
    });
    expect(refused.status).toBe(400);
    const marker = await h.proxy("POST", `/calendar/v3/calendars/${encodeURIComponent(ALICE)}/events/watch`, {
      headers: json,
      body: JSON.stringify({ id: "chan-marker", type: "web_hook", address: `${h.junction.baseUrl}/webhook/x` }),
    });
    expect(marker.status).toBe(200);
    await waitFor("the marker channel", () => channel("chan-marker"));
    expect(await channel("bad id with spaces")).toBeUndefined();
  });

  test("calls on a provider without channels (mail) are not observed", async () => {
    const res = await h.proxy("POST", "/echo/calendars/x/events/watch", {
      headers: { ...json, "provider-config-key": MAIL },
      body: JSON.stringify({ id: "chan-on-mail" }),
    });
    expect(res.status).toBe(200);
    const watched = await h.proxy("POST", "/echo/calendars/x/events/watch", {
      headers: json,
      body: JSON.stringify({ id: "chan-on-calendar-echo" }),
    });
    expect(watched.status).toBe(200);
    // The echo answers 200 without a resource id; the registry records what the call named.
    await waitFor("the calendar echo watch", async () =>
      (await h.junction.clients.channel.listChannels({})).channels.some((c) => c.id === "chan-on-calendar-echo"),
    );
    const all = (await h.junction.clients.channel.listChannels({})).channels.map((c) => c.id);
    expect(all).not.toContain("chan-on-mail");
  });
});
