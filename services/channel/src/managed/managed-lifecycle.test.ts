import { afterEach, describe, expect, test } from "bun:test";
import { ChannelLifecycleEvent } from "@junction/contracts/channel/v1/channel_service_pb";
import { fromConnectError } from "@junction/platform";
import { DAY, ENV, type ManagedHarness, managedHarness } from "../../testing/managed-test-kit.ts";

const SLOT = { environmentId: ENV, providerConfigKey: "int", connectionId: "conn-a" };

describe("HandleChannelLifecycle", () => {
  let h: ManagedHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const lifecycle = (channelId: string, event: ChannelLifecycleEvent) =>
    (h as ManagedHarness).channels.handleChannelLifecycle({
      environmentId: ENV,
      providerConfigKey: "int",
      channelId,
      event,
      notificationId: "ntf_test",
    });

  test("reauthorization required renews a managed subscription in place", async () => {
    h = await managedHarness("microsoft-outlook-calendar");
    await h.connect("conn-a");
    const [id] = await h.active("conn-a");
    const before = await h.store.get(ENV, id as string, h.clock.now());
    await h.clock.advance(DAY);
    expect(await lifecycle(id as string, ChannelLifecycleEvent.REAUTHORIZATION_REQUIRED)).toMatchObject({
      action: "renewed",
    });
    const after = await h.store.get(ENV, id as string, h.clock.now());
    expect(after?.expiration).toBe((before?.expiration as number) + DAY);
    expect(await h.active("conn-a")).toEqual([id as string]);
    expect(h.webhooks.map((w) => [w.operation, w.reason])).toEqual([
      ["created", "connection_created"],
      ["renewed", "reauthorization_required"],
    ]);
  });

  test("removed marks a managed channel stopped, tells the customer and recreates it", async () => {
    h = await managedHarness("microsoft-outlook-calendar");
    await h.connect("conn-a");
    const [id] = await h.active("conn-a");
    // The upstream removed it: it sends nothing more.
    for (const c of h.upstream.channels.values()) c.stopped = true;
    expect(await lifecycle(id as string, ChannelLifecycleEvent.REMOVED)).toMatchObject({ action: "recreated" });
    expect((await h.store.get(ENV, id as string, h.clock.now()))?.state).toBe("stopped");
    const active = await h.active("conn-a");
    expect(active).toHaveLength(1);
    expect(active[0]).not.toBe(id);
    expect(h.upstream.activeFor("conn-a").map((c) => c.id)).toEqual(active);
    expect((await h.store.managed.getManaged(SLOT))?.channelId).toBe(active[0] as string);
    const removed = h.webhooks.find((w) => w.operation === "removed");
    expect(removed).toMatchObject({ type: "channel", managed: true, connectionId: "conn-a", channel: { id } });
    expect(h.webhooks.at(-1)).toMatchObject({ operation: "created", reason: "removed", channel: { id: active[0] } });
  });

  test("a recreation that fails is retried: the answer says it is scheduled", async () => {
    h = await managedHarness("microsoft-outlook-calendar");
    await h.connect("conn-a");
    const [id] = await h.active("conn-a");
    for (const c of h.upstream.channels.values()) c.stopped = true;
    h.upstream.failCreates = 1;
    expect(await lifecycle(id as string, ChannelLifecycleEvent.REMOVED)).toMatchObject({
      action: "recreation_scheduled",
    });
    expect(await h.active("conn-a")).toEqual([]);
    expect((await h.store.managed.getManaged(SLOT))?.attempts).toBe(1);
    await h.clock.advance(60_000);
    await h.managed.idle();
    expect(await h.active("conn-a")).toHaveLength(1);
    expect(h.upstream.activeFor("conn-a")).toHaveLength(1);
  });

  test("for a channel Junction does not manage, the customer is told and nothing is created", async () => {
    h = await managedHarness("microsoft-outlook-calendar", { managedChannels: false });
    await h.store.recordWatch({
      environmentId: ENV,
      channelId: "sub-script",
      resourceId: "",
      providerConfigKey: "int",
      connectionId: "conn-s",
      resourceUri: "/me/events",
      expiration: h.clock.now() + DAY,
      token: "client-state",
      at: h.clock.now(),
    });
    expect(await lifecycle("sub-script", ChannelLifecycleEvent.REAUTHORIZATION_REQUIRED)).toMatchObject({
      action: "customer_told",
    });
    expect(await lifecycle("sub-script", ChannelLifecycleEvent.REMOVED)).toMatchObject({ action: "stopped" });
    // A repeat changes nothing and tells nobody again.
    expect(await lifecycle("sub-script", ChannelLifecycleEvent.REMOVED)).toMatchObject({ action: "ignored" });
    expect(h.webhooks.map((w) => [w.operation, w.managed, w.connectionId])).toEqual([
      ["reauthorization_required", false, "conn-s"],
      ["removed", false, "conn-s"],
    ]);
    expect(JSON.stringify(h.webhooks)).not.toContain("client-state");
    expect(h.upstream.calls).toEqual([]);
  });

  test("an unknown channel is NotFound unknown_channel; a request without one is refused", async () => {
    h = await managedHarness("microsoft-outlook-calendar");
    const unknown = await lifecycle("sub-nope", ChannelLifecycleEvent.REMOVED).catch(fromConnectError);
    expect(unknown).toMatchObject({ code: "unknown_channel" });
    const missing = await lifecycle("", ChannelLifecycleEvent.REMOVED).catch(fromConnectError);
    expect(missing).toMatchObject({ code: "invalid_request" });
    const noEvent = await lifecycle("sub-nope", ChannelLifecycleEvent.UNSPECIFIED).catch(fromConnectError);
    expect(noEvent).toMatchObject({ code: "invalid_request" });
  });
});
