import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteChannelStore } from "../store/sqlite-store.ts";
import { DAY, ENV, HOUR, type ManagedHarness, managedHarness, TOPIC } from "../../testing/managed-test-kit.ts";

const SLOT = { environmentId: ENV, providerConfigKey: "int", connectionId: "conn-a" };
const MIN = 60_000;

describe("managed channels: failures, restarts, several processes, deletion", () => {
  let h: ManagedHarness | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  test("a refused creation is retried with the backoff, told once, and never shows the token", async () => {
    h = await managedHarness("microsoft-outlook-calendar");
    h.upstream.failCreates = 3;
    const start = h.clock.now();
    await h.connect("conn-a");
    const first = await h.store.managed.getManaged(SLOT);
    expect(first).toMatchObject({ attempts: 1, dueAt: start + MIN, reason: "connection_created" });
    expect(first?.lastError).toStartWith("upstream_refused: The upstream answered 503");
    // 1, 2 then 4 minutes: the platform's exponential backoff.
    await h.clock.advance(MIN);
    await h.managed.idle();
    expect((await h.store.managed.getManaged(SLOT))?.dueAt).toBe(start + 3 * MIN);
    await h.clock.advance(2 * MIN);
    await h.managed.idle();
    expect(await h.active("conn-a")).toEqual([]);
    await h.clock.advance(4 * MIN);
    await h.managed.idle();
    expect(await h.active("conn-a")).toHaveLength(1);
    expect(await h.store.managed.getManaged(SLOT)).toMatchObject({ attempts: 0, lastError: null, reason: "renewal" });
    expect(h.webhooks.map((w) => w.operation)).toEqual(["failed", "created"]);
    expect(h.webhooks[0]).toMatchObject({ managed: true, error: { code: "upstream_refused", attempts: 1 } });
    // The stand-in echoed the clientState in its refusals: no part of a token is kept.
    expect(h.upstream.sentTokens).toHaveLength(4);
    expect(JSON.stringify(h.webhooks[0])).toContain("[redacted]");
    const logs = h.logger.lines.join("\n");
    expect(logs).toContain("[redacted]");
    for (const token of h.upstream.sentTokens) {
      expect(logs).not.toContain(token.slice(0, 8));
      expect(JSON.stringify(h.webhooks)).not.toContain(token.slice(0, 8));
    }
  });

  test("a replaced channel whose stop failed is stopped by a retry soon after, not left to expire", async () => {
    h = await managedHarness("google-calendar");
    await h.connect("conn-a");
    const [first] = await h.active("conn-a");
    h.upstream.failStops = 2;
    await h.clock.advance(6 * DAY);
    await h.managed.idle();
    // Renewed, but the old channel could not be stopped: both send for now.
    expect(await h.active("conn-a")).toHaveLength(2);
    expect(await h.store.managed.getManaged(SLOT)).toMatchObject({ staleChannelId: first, reason: "stop_replaced" });
    await h.clock.advance(MIN);
    await h.managed.idle();
    expect(await h.store.managed.getManaged(SLOT)).toMatchObject({ attempts: 1, reason: "stop_replaced" });
    await h.clock.advance(MIN);
    await h.managed.idle();
    const [second] = await h.active("conn-a");
    expect(await h.active("conn-a")).toEqual([second as string]);
    expect(h.upstream.activeFor("conn-a").map((c) => c.id)).toEqual([second as string]);
    const slot = await h.store.managed.getManaged(SLOT);
    expect(slot).toMatchObject({ staleChannelId: null, reason: "renewal", attempts: 0, channelId: second });
    const channel = await h.store.get(ENV, second as string, h.clock.now());
    expect(slot?.dueAt).toBe((channel?.expiration as number) - DAY);
  });

  test("a mail integration without its topic setting fails clearly and keeps running", async () => {
    h = await managedHarness("google-mail");
    await h.connect("conn-a");
    const slot = await h.store.managed.getManaged(SLOT);
    expect(slot?.lastError).toStartWith("invalid_provider_settings: ");
    expect(slot?.lastError).toContain("pubsub_topic");
    expect(h.upstream.calls).toEqual([]);
    expect(h.webhooks).toMatchObject([{ operation: "failed", error: { code: "invalid_provider_settings" } }]);
    expect(h.logger.lines.some((l) => l.includes("managed channel step failed; retried with backoff"))).toBe(true);
    // The operator sets the topic: the next retry creates the watch.
    h.integration.providerSettings = { pubsub_topic: TOPIC };
    await h.clock.advance(MIN);
    await h.managed.idle();
    expect(await h.active("conn-a")).toHaveLength(1);
  });

  test("the schedule survives a restart: a new process renews on time from the registry", async () => {
    dir = mkdtempSync(join(tmpdir(), "managed-restart-"));
    const path = join(dir, "channel.sqlite");
    h = await managedHarness("google-calendar", { store: SqliteChannelStore.open(path) });
    await h.connect("conn-a");
    const [first] = await h.active("conn-a");
    await h.managed.stop();
    // Restarted five days later: the renewal (a day before the 7-day expiry) is not due yet.
    await h.clock.advance(5 * DAY);
    const restarted = h.runner();
    await restarted.start();
    await restarted.idle();
    expect(await h.active("conn-a")).toEqual([first as string]);
    // Its timer comes from the registry's due time: the renewal happens on day six.
    await h.clock.advance(DAY);
    await restarted.idle();
    const [second] = await h.active("conn-a");
    expect(second).not.toBe(first);
    expect(h.upstream.activeFor("conn-a").map((c) => c.id)).toEqual([second as string]);
    const reopened = SqliteChannelStore.open(path);
    expect((await reopened.managed.getManaged(SLOT))?.channelId).toBe(second as string);
    await reopened.close();
  });

  test("a process down past the expiry creates a new channel when it comes back", async () => {
    h = await managedHarness("microsoft-outlook-calendar");
    await h.connect("conn-a");
    await h.managed.stop();
    await h.clock.advance(8 * DAY);
    expect(await h.active("conn-a")).toEqual([]);
    const restarted = h.runner();
    await restarted.start();
    await restarted.idle();
    expect(await h.active("conn-a")).toHaveLength(1);
    expect(h.upstream.activeFor("conn-a")).toHaveLength(1);
  });

  test("a connection whose event was missed, or made before the switch, gets its channel from the hourly look", async () => {
    h = await managedHarness("microsoft-outlook-calendar", { managedChannels: false });
    h.known.add("conn-early");
    await h.connect("conn-a");
    expect(h.upstream.calls).toEqual([]);
    // Switched on: no event says so; the next look finds both connections.
    h.integration.managedChannels = true;
    await h.clock.advance(HOUR);
    await h.managed.idle();
    expect(await h.active("conn-early")).toHaveLength(1);
    expect(await h.active("conn-a")).toHaveLength(1);
    expect(h.webhooks.map((w) => w.reason)).toEqual(["connection_found", "connection_found"]);
  });

  test("a look that fails (the connection service not answering yet) is retried after the poll interval", async () => {
    h = await managedHarness("google-calendar");
    await h.managed.idle();
    h.known.add("conn-a");
    h.listFails = true;
    const restarted = h.runner();
    await restarted.start();
    await restarted.idle();
    expect(h.logger.lines.filter((l) => l.includes("managed connections not reconciled"))).toHaveLength(1);
    h.listFails = false;
    await h.clock.advance(HOUR);
    await restarted.idle();
    expect(await h.active("conn-a")).toHaveLength(1);
  });

  test("of several processes, one runs each due slot", async () => {
    h = await managedHarness("google-calendar");
    for (const c of ["conn-a", "conn-b", "conn-c", "conn-d"]) {
      await h.store.managed.scheduleManaged(
        { ...SLOT, connectionId: c },
        "connection_created",
        h.clock.now(),
        h.clock.now(),
      );
    }
    const others = [h.runner(), h.runner(), h.runner()];
    await Promise.all([h.managed.runDue(), ...others.map((o) => o.runDue())]);
    const creates = h.upstream.calls.filter((c) => /^POST \/calendar\/v3\/calendars\/[^/]+\/events\/watch/.test(c));
    expect(creates.map((c) => c.split(" ")[2]).sort()).toEqual(["conn-a", "conn-b", "conn-c", "conn-d"]);
  });

  test("a deleted connection's channel is stopped and never renewed or recreated", async () => {
    h = await managedHarness("google-calendar");
    await h.connect("conn-a");
    await h.connect("conn-b");
    const { results } = await h.channels.stopChannels({
      environmentId: ENV,
      providerConfigKey: "int",
      connectionId: "conn-a",
    });
    expect(results).toHaveLength(1);
    expect(await h.store.managed.getManaged(SLOT)).toMatchObject({ dueAt: null, reason: "stopped" });
    await h.clock.advance(30 * DAY);
    await h.managed.idle();
    expect(await h.active("conn-a")).toEqual([]);
    expect(h.upstream.activeFor("conn-a")).toEqual([]);
    expect(await h.active("conn-b")).toHaveLength(1);
  });

  test("with managed channels off (the default), a new connection gets no channel from Junction", async () => {
    h = await managedHarness("google-calendar", { managedChannels: false });
    await h.connect("conn-a");
    await h.clock.advance(HOUR);
    expect(await h.store.managed.getManaged(SLOT)).toBeNull();
    expect(h.upstream.calls).toEqual([]);
  });

  test("a slot whose integration turned managed channels off is left alone", async () => {
    h = await managedHarness("google-calendar");
    await h.connect("conn-a");
    h.integration.managedChannels = false;
    await h.clock.advance(7 * DAY);
    await h.managed.idle();
    expect(await h.store.managed.getManaged(SLOT)).toMatchObject({ dueAt: null, reason: "not_managed" });
    // The account's calendar read and one watch: nothing after the switch was turned off.
    expect(h.upstream.calls).toHaveLength(2);
  });
});
