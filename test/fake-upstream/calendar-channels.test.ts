import { describe, expect, test } from "bun:test";
import { CALENDAR_SCOPE, DAY_MS, manualClock, api, watch, useFakeUpstreams } from "./fake-upstream-test-kit.ts";

const { start, receiver } = useFakeUpstreams();

describe("Calendar", () => {
  test("returns the user's email as the primary calendar id", async () => {
    const fake = await start();
    const { accessToken } = fake.issueTokens({ scopes: [CALENDAR_SCOPE] });
    const response = await api(fake, "/calendar/v3/users/me/calendarList/primary", accessToken);
    expect(await response.json()).toEqual({
      kind: "calendar#calendarListEntry",
      id: "alice@example.com",
      summary: "alice@example.com",
      primary: true,
      timeZone: "UTC",
      accessRole: "owner",
    });
  });

  test("creates channels with either type spelling", async () => {
    const fake = await start();
    const hook = receiver();
    const { accessToken } = fake.issueTokens({});
    for (const [id, type] of [
      ["chan-a", "web_hook"],
      ["chan-b", "webhook"],
    ]) {
      const response = await watch(fake, accessToken, { id, type, address: hook.url });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        kind: "api#channel",
        id,
        resourceUri: "https://www.googleapis.com/calendar/v3/calendars/alice%40example.com/events?alt=json",
      });
    }
    expect(fake.state.channels.map((c) => c.type)).toEqual(["web_hook", "webhook"]);
  });

  test("rejects a channel id longer than 64 characters", async () => {
    const fake = await start();
    const hook = receiver();
    const { accessToken } = fake.issueTokens({});
    const tooLong = await watch(fake, accessToken, { id: "x".repeat(65), type: "web_hook", address: hook.url });
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).error).toMatchObject({
      code: 400,
      errors: [{ domain: "global", reason: "invalid" }],
    });
    expect((await watch(fake, accessToken, { id: "x".repeat(64), type: "web_hook", address: hook.url })).status).toBe(
      200,
    );
  });

  test("rejects a duplicate live channel id", async () => {
    const fake = await start();
    const hook = receiver();
    const { accessToken } = fake.issueTokens({});
    await watch(fake, accessToken, { id: "dup", type: "web_hook", address: hook.url });
    const again = await watch(fake, accessToken, { id: "dup", type: "web_hook", address: hook.url });
    expect(again.status).toBe(400);
    expect((await again.json()).error.errors[0].reason).toBe("channelIdNotUnique");
  });

  test("refuses plain-http addresses unless insecure addresses are allowed", async () => {
    const fake = await start({ allowInsecureAddresses: false });
    const { accessToken } = fake.issueTokens({});
    const response = await watch(fake, accessToken, { id: "c", type: "web_hook", address: "http://127.0.0.1:1/hook" });
    expect(response.status).toBe(400);
    expect((await response.json()).error.errors[0].reason).toBe("push.webhookUrlNotHttps");
  });

  test("applies a 7-day expiration when none is given", async () => {
    const clock = manualClock();
    const fake = await start({ now: clock.now });
    const hook = receiver();
    const { accessToken } = fake.issueTokens({});
    const body = await (await watch(fake, accessToken, { id: "c", type: "web_hook", address: hook.url })).json();
    expect(body.expiration).toBe(String(clock.now() + 7 * DAY_MS));
  });

  test("delivers a sync notification with Google's headers and no body", async () => {
    const fake = await start();
    const hook = receiver();
    const { accessToken } = fake.issueTokens({});
    const expiration = Date.now() + DAY_MS;
    const created = await (
      await watch(fake, accessToken, { id: "chan-sync", type: "web_hook", address: hook.url, token: "t=1", expiration })
    ).json();
    const [sent] = await fake.awaitNotifications(1);
    expect(sent).toMatchObject({ status: 200, resourceState: "sync", messageNumber: 1 });
    const [delivered] = hook.received;
    expect(delivered?.body).toBe("");
    expect(delivered?.headers).toMatchObject({
      "x-goog-channel-id": "chan-sync",
      "x-goog-channel-token": "t=1",
      "x-goog-channel-expiration": new Date(expiration).toUTCString(),
      "x-goog-resource-state": "sync",
      "x-goog-message-number": "1",
      "x-goog-resource-id": created.resourceId,
      "x-goog-resource-uri": created.resourceUri,
    });
  });

  test("uses the spec's x-provider-* header names in provider style", async () => {
    const fake = await start({ notificationHeaderStyle: "provider", resourceUriBase: "https://calendar.fake" });
    const hook = receiver();
    const { accessToken } = fake.issueTokens({});
    await watch(fake, accessToken, { id: "chan-p", type: "webhook", address: hook.url }, "primary");
    await fake.awaitNotifications(1);
    expect(hook.received[0]?.headers).toMatchObject({
      "x-provider-channel-id": "chan-p",
      "x-provider-resource-state": "sync",
      "x-provider-message-number": "1",
      "x-provider-resource-uri": "https://calendar.fake/calendar/v3/calendars/primary/events?alt=json",
    });
    expect(Object.keys(hook.received[0]?.headers ?? {}).some((h) => h.startsWith("x-goog-"))).toBe(false);
  });

  test("sends exists notifications with incrementing message numbers on event changes", async () => {
    const fake = await start();
    const hook = receiver();
    const { accessToken } = fake.issueTokens({});
    await watch(fake, accessToken, { id: "chan-e", type: "web_hook", address: hook.url });
    const events = "/calendar/v3/calendars/primary/events";
    const event = {
      summary: "Standup",
      start: { dateTime: "2026-11-22T09:00:00Z" },
      end: { dateTime: "2026-11-22T09:15:00Z" },
    };
    const created = await (await api(fake, events, accessToken, { method: "POST", body: event })).json();
    await api(fake, `${events}/${created.id}`, accessToken, { method: "PATCH", body: { summary: "Standup (moved)" } });
    await api(fake, `${events}/${created.id}`, accessToken, { method: "DELETE" });
    const sent = await fake.awaitNotifications(4);
    expect(sent.map((n) => [n.resourceState, n.messageNumber])).toEqual([
      ["sync", 1],
      ["exists", 2],
      ["exists", 3],
      ["exists", 4],
    ]);
    expect(hook.received.map((r) => r.headers["x-goog-message-number"])).toEqual(["1", "2", "3", "4"]);
  });

  test("lists changes incrementally with a sync token and reports deletions as cancelled", async () => {
    const fake = await start();
    const { accessToken } = fake.issueTokens({});
    const events = "/calendar/v3/calendars/alice%40example.com/events";
    const first = fake.createEvent("alice@example.com", { summary: "One" });
    const full = await (await api(fake, events, accessToken)).json();
    expect(full).toMatchObject({ kind: "calendar#events", items: [{ id: first.id }] });
    await api(fake, `${events}/${first.id}`, accessToken, { method: "DELETE" });
    const delta = await (await api(fake, `${events}?syncToken=${full.nextSyncToken}`, accessToken)).json();
    expect(delta.items).toMatchObject([{ id: first.id, status: "cancelled" }]);
    fake.invalidateSyncTokens("alice@example.com");
    expect((await api(fake, `${events}?syncToken=${delta.nextSyncToken}`, accessToken)).status).toBe(410);
  });

  test("stops a channel so later changes notify nobody", async () => {
    const fake = await start();
    const hook = receiver();
    const { accessToken } = fake.issueTokens({});
    const channel = await (
      await watch(fake, accessToken, { id: "chan-s", type: "web_hook", address: hook.url })
    ).json();
    await fake.awaitNotifications(1);
    const stop = () =>
      api(fake, "/calendar/v3/channels/stop", accessToken, {
        method: "POST",
        body: { id: "chan-s", resourceId: channel.resourceId },
      });
    const stopped = await stop();
    expect(stopped.status).toBe(204);
    expect(await stopped.text()).toBe("");
    expect(fake.state.channels[0]?.state).toBe("stopped");

    expect(fake.changeCalendar("alice@example.com")).toBe(0);
    fake.createEvent("alice@example.com");
    await fake.settleNotifications();
    expect(hook.received).toHaveLength(1);

    const again = await stop();
    expect(again.status).toBe(404);
    expect((await again.json()).error.message).toBe("Channel 'chan-s' not found for project '123456789012'");
  });

  test("leaves one active channel after a renewal stops the old one", async () => {
    const fake = await start();
    const hook = receiver();
    const { accessToken } = fake.issueTokens({});
    const old = await (await watch(fake, accessToken, { id: "chan-old", type: "webhook", address: hook.url })).json();
    await watch(fake, accessToken, { id: "chan-new", type: "webhook", address: hook.url });
    await api(fake, "/calendar/v3/channels/stop", accessToken, {
      method: "POST",
      body: { id: old.id, resourceId: old.resourceId },
    });
    expect(fake.state.channels.filter((c) => c.state === "active").map((c) => c.id)).toEqual(["chan-new"]);
  });

  test("sends nothing on a channel once the injected clock passes its expiration", async () => {
    const clock = manualClock();
    const fake = await start({ now: clock.now });
    const hook = receiver();
    const { accessToken } = fake.issueTokens({});
    await watch(fake, accessToken, {
      id: "chan-x",
      type: "web_hook",
      address: hook.url,
      expiration: clock.now() + 60_000,
    });
    await fake.awaitNotifications(1);
    expect(fake.changeCalendar("alice@example.com")).toBe(1);
    await fake.awaitNotifications(2);

    clock.advance(60_000);
    expect(fake.state.channels[0]?.state).toBe("expired");
    expect(fake.changeCalendar("alice@example.com")).toBe(0);
    await fake.settleNotifications();
    expect(hook.received).toHaveLength(2);
  });

  test("records failed deliveries with their status", async () => {
    const fake = await start();
    const hook = receiver();
    hook.respondWith(500);
    const { accessToken } = fake.issueTokens({});
    await watch(fake, accessToken, { id: "chan-f", type: "web_hook", address: hook.url });
    fake.sendNotification("chan-f", "exists");
    const sent = await fake.awaitNotifications(2);
    expect(sent.map((n) => n.status)).toEqual([500, 500]);
  });
});
