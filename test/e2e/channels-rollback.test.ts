import { describe, expect, test } from "bun:test";
import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import { waitFor } from "../support/wait-for.ts";
import { CLIENT, type ChannelsWorld, integration, useChannelsWorld } from "./channels-kit.ts";

// POST /channels/stop-all: the spec's rollback ("stop webhooks by calling channel stop for each
// channel") as one call.

const world = useChannelsWorld();
const ALICE = "alice@example.com";
const BOB = "bob@example.com";

describe("POST /channels/stop-all", () => {
  test("stops every active channel of the integration upstream; the registry shows them stopped", async () => {
    const w = await world();
    await integration(w, "cal-2");
    await w.connect("conn-a", ALICE);
    await w.connect("conn-b", BOB);
    await w.connect("conn-other", "carol@example.com", "cal-2");
    await w.watch("conn-a", "a-1");
    await w.watch("conn-a", "a-2");
    await w.watch("conn-b", "b-1");
    await w.watch("conn-other", "untouched", { key: "cal-2" });
    await w.receiver.waitFor(4); // the "sync" of each channel, forwarded

    const res = await w.j.api("POST", "/channels/stop-all", { integration: "cal" });
    expect(res.status).toBe(200);
    expect(res.body.data.integration).toBe("cal");
    expect([...res.body.data.stopped].sort()).toEqual(["a-1", "a-2", "b-1"]);
    expect(res.body.data.gone).toEqual([]);
    expect(res.body.data.failed).toEqual([]);

    for (const id of ["a-1", "a-2", "b-1"]) expect(w.upstream(id)?.state).toBe("stopped");
    expect(w.upstream("untouched")?.state).toBe("active");
    // Recorded by the channel service as it stopped them: no wait needed.
    const active = await w.j.api("GET", "/channels?integration=cal&state=active");
    expect(active.body.data).toEqual([]);
    expect((await w.registry("a-1"))?.stopped_at).toBe(new Date(w.clock.now()).toISOString());
    expect((await w.registry("untouched", "cal-2"))?.state).toBe("active");

    // Notifications cease: a change on the calendars reaches no channel of the integration.
    await w.fake.settleNotifications();
    const before = w.receiver.received.length;
    expect(w.fake.changeCalendar(ALICE)).toBe(0);
    expect(w.fake.changeCalendar(BOB)).toBe(0);
    await w.fake.settleNotifications();
    expect(w.receiver.received.length).toBe(before);
    // Stopping again has nothing left to do.
    const again = await w.j.api("POST", "/channels/stop-all", { integration: "cal" });
    expect(again.body.data).toEqual({ integration: "cal", stopped: [], gone: [], failed: [] });
  });

  test("a channel the upstream no longer knows (404) is recorded as stopped, and listed as gone", async () => {
    const w = await world();
    await w.connect("conn-a", ALICE);
    const watched = await w.watch("conn-a", "stopped-behind-our-back");
    await w.watch("conn-a", "live");
    await stopDirectly(w, "stopped-behind-our-back", watched.resourceId);

    const res = await w.j.api("POST", "/channels/stop-all", { integration: "cal" });
    expect([...res.body.data.stopped].sort()).toEqual(["live", "stopped-behind-our-back"]);
    expect(res.body.data.gone).toEqual(["stopped-behind-our-back"]);
    expect(res.body.data.failed).toEqual([]);
    expect((await w.registry("stopped-behind-our-back"))?.state).toBe("stopped");
    expect(w.j.logLines.some((l) => l.includes("channel gone upstream, recorded as stopped"))).toBe(true);
  });

  test("a 404 on a stop the customer makes through the proxy also ends the channel in the registry", async () => {
    const w = await world();
    await w.connect("conn-a", ALICE);
    const watched = await w.watch("conn-a", "gone-upstream");
    await stopDirectly(w, "gone-upstream", watched.resourceId);
    const stop = await w.j.api(
      "POST",
      "/proxy/calendar/v3/channels/stop",
      { id: "gone-upstream", resourceId: watched.resourceId },
      { "provider-config-key": "cal", "connection-id": "conn-a" },
    );
    expect(stop.status).toBe(404);
    await waitFor(
      "the registry to show it stopped",
      async () => (await w.registry("gone-upstream"))?.state === "stopped",
    );
  });

  test("reports each channel it could not stop, with the reason, and leaves them active", async () => {
    const w = await world();
    await w.connect("conn-a", ALICE);
    await w.connect("conn-b", BOB);
    await w.watch("conn-a", "revoked-user");
    await w.watch("conn-b", "fine");
    // Alice revoked Junction's access: the stop answers 401, the forced refresh fails.
    w.fake.revokeAllFor(ALICE);
    const env = (await w.j.clients.connection.getEnvironment({})).environment?.id ?? "";
    // A channel whose connection Junction does not have (created elsewhere and reported).
    await w.j.clients.proxy.reportChannelCall({
      call: ChannelCall.WATCH,
      environmentId: env,
      providerConfigKey: "cal",
      connectionId: "ghost-connection",
      status: 200,
      requestBody: new TextEncoder().encode(JSON.stringify({ id: "ghost", type: "webhook", address: "https://x" })),
      responseBody: new TextEncoder().encode(JSON.stringify({ id: "ghost", resourceId: "r", resourceUri: "u" })),
    });
    await waitFor("the ghost channel", () => w.registry("ghost"));

    const res = await w.j.api("POST", "/channels/stop-all", { integration: "cal" });
    expect(res.status).toBe(200);
    expect(res.body.data.stopped).toEqual(["fine"]);
    const failed = [...res.body.data.failed].sort((a, b) => a.channel_id.localeCompare(b.channel_id));
    expect(failed).toMatchObject([
      { channel_id: "ghost", connection_id: "ghost-connection", code: "unknown_connection", status: null },
      { channel_id: "revoked-user", connection_id: "conn-a", code: "connection_refresh_failed", status: null },
    ]);
    expect((await w.registry("revoked-user"))?.state).toBe("active");
    expect((await w.registry("ghost"))?.state).toBe("active");
    // No secret in the answer or the logs.
    const text = JSON.stringify(res.body) + w.j.logLines.join("\n");
    expect(text).not.toContain(CLIENT.clientSecret);
    for (const t of w.fake.state.accessTokens.keys()) expect(text).not.toContain(t);
    for (const t of w.fake.state.refreshTokens.keys()) expect(text).not.toContain(t);
  });

  test("refuses a bad body and an unknown integration; an integration without channels stops none", async () => {
    const w = await world();
    await w.j.api("POST", "/integrations", { unique_key: "mail", provider: "google-mail" });
    expect((await w.j.api("POST", "/channels/stop-all", {})).body.error.code).toBe("invalid_body");
    const unknown = await w.j.api("POST", "/channels/stop-all", { integration: "nope" });
    expect(unknown.status).toBe(404);
    // Every provider has channels now (Gmail's are its mailbox watches): a mail integration has none to stop.
    const mail = await w.j.api("POST", "/channels/stop-all", { integration: "mail" });
    expect(mail.status).toBe(200);
    expect(mail.body.data).toMatchObject({ stopped: [], failed: [] });
  });
});

/** Stops a channel upstream directly, not through Junction: the registry still holds it active. */
async function stopDirectly(w: ChannelsWorld, channelId: string, resourceId: string): Promise<void> {
  const token = w.fake.issueTokens({ email: ALICE, clientId: CLIENT.clientId }).accessToken;
  const direct = await fetch(`${w.fake.url}/calendar/v3/channels/stop`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ id: channelId, resourceId }),
  });
  expect(direct.status).toBe(204);
  expect((await w.registry(channelId))?.state).toBe("active");
}
