import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { create, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { MemoryBus, type Subscription, subjects } from "@junction/bus";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { ChannelService, ChannelState } from "@junction/contracts/channel/v1/channel_service_pb";
import { ChannelCall, ChannelObservedSchema } from "@junction/contracts/events/v1/events_pb";
import { errorBoundary, ManualClock, memoryLogger } from "@junction/platform";
import { providerAdapter } from "@junction/providers";
import { applyNotification, observeChannels } from "./channel-observer.ts";
import { createChannelService } from "./service.ts";
import type { ChannelRecord } from "./store/records.ts";
import { SqliteChannelStore } from "./store/sqlite-store.ts";
import { testTokens } from "../testing/test-tokens.ts";
const tokens = testTokens();

const ENV = "env_observer_test";
const PCK = "google-calendar";
const DAY = 24 * 3_600_000;

/** Re-runs `read` until `done` holds for its result, failing after `timeoutMs`. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 2_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value: ${JSON.stringify(value)}`);
    await new Promise<void>((r) => setImmediate(r));
  }
}

describe("observeChannels", () => {
  let bus: MemoryBus;
  let store: SqliteChannelStore;
  let clock: ManualClock;
  let logger: ReturnType<typeof memoryLogger>;
  let subscription: Subscription;

  beforeEach(async () => {
    clock = new ManualClock();
    logger = memoryLogger();
    bus = new MemoryBus(undefined, { clock, logger });
    store = SqliteChannelStore.open(":memory:");
    subscription = await observeChannels(bus, store, clock, logger, tokens);
  });
  afterEach(async () => {
    await subscription.stop();
    await bus.close();
    await store.close();
  });

  type Init = MessageInitShape<typeof ChannelObservedSchema>;
  const publish = (init: Init) =>
    bus.publish(
      subjects.channelObserved(init.providerConfigKey ?? PCK),
      toBinary(ChannelObservedSchema, create(ChannelObservedSchema, init)),
    );
  const watched = (channelId: string, over: Init = {}): Init => ({
    call: ChannelCall.WATCH,
    environmentId: ENV,
    providerConfigKey: PCK,
    connectionId: "conn-a",
    channelId,
    resourceId: "res-1",
    resourceUri: "https://calendar.example.test/calendar/v3/calendars/a%40example.com/events",
    expirationMs: BigInt(clock.now() + 7 * DAY),
    status: 200,
    token: "customer-token",
    atMs: BigInt(clock.now()),
    ...over,
  });
  const stopped = (channelId: string, resourceId: string, over: Init = {}): Init => ({
    call: ChannelCall.STOP,
    environmentId: ENV,
    providerConfigKey: PCK,
    connectionId: "conn-a",
    channelId,
    resourceId,
    status: 204,
    atMs: BigInt(clock.now()),
    ...over,
  });
  const get = (id: string) => store.get(ENV, id, clock.now());
  const exists = (c: ChannelRecord | null) => c !== null;

  test("records a watch that returned 200, its token sealed beside a digest (no plaintext stored)", async () => {
    const at = clock.now();
    await publish(watched("ch-1"));
    const channel = await eventually(() => get("ch-1"), exists);
    expect(channel).toMatchObject({
      environmentId: ENV,
      providerConfigKey: PCK,
      connectionId: "conn-a",
      resourceId: "res-1",
      expiration: at + 7 * DAY,
      state: "active",
      createdAt: at,
    });
    expect(channel?.token).toStartWith("enc:v2:");
    expect(channel?.tokenDigest).toStartWith("mac:v1:");
    expect(JSON.stringify(channel)).not.toContain("customer-token");
    expect(tokens.open(channel as ChannelRecord)).toBe("customer-token");
    expect(tokens.matches(channel as ChannelRecord, "customer-token")).toBe(true);
    expect(tokens.matches(channel as ChannelRecord, "customer-tokem")).toBe(false);
  });

  test("records a watch answered 201 Created (a subscription), as any 2xx", async () => {
    await publish(watched("ch-created", { status: 201 }));
    expect(await eventually(() => get("ch-created"), exists)).toMatchObject({ state: "active" });
  });

  test("ignores a watch that failed upstream", async () => {
    await publish(watched("ch-failed", { status: 400 }));
    await publish(watched("ch-marker"));
    await eventually(() => get("ch-marker"), exists);
    expect(await get("ch-failed")).toBeNull();
  });

  test("uses the clock when the event carries no time, and null for an unknown expiration or token", async () => {
    await publish(watched("ch-1", { atMs: 0n, expirationMs: 0n, token: "" }));
    const channel = await eventually(() => get("ch-1"), exists);
    expect(channel).toMatchObject({ createdAt: clock.now(), expiration: null, token: null });
  });

  test("stops a channel only with its own resource id and a 2xx answer", async () => {
    await publish(watched("ch-1"));
    await clock.advance(1000);
    await publish(stopped("ch-1", "res-other"));
    await publish(stopped("ch-1", "res-1", { status: 403 }));
    await publish(stopped("ch-1", "res-1", { status: 500 }));
    await publish(watched("ch-marker"));
    await eventually(() => get("ch-marker"), exists);
    expect((await get("ch-1"))?.state).toBe("active");

    await publish(stopped("ch-1", "res-1"));
    const channel = await eventually(
      () => get("ch-1"),
      (c) => c?.state === "stopped",
    );
    expect(channel?.stoppedAt).toBe(clock.now());
  });

  test("a stop the upstream answers 404 (it no longer knows the channel) records it stopped", async () => {
    await publish(watched("ch-gone"));
    await clock.advance(1000);
    await publish(stopped("ch-gone", "res-other", { status: 404 }));
    await publish(watched("ch-marker"));
    await eventually(() => get("ch-marker"), exists);
    expect((await get("ch-gone"))?.state).toBe("active");
    await publish(stopped("ch-gone", "res-1", { status: 404 }));
    const channel = await eventually(
      () => get("ch-gone"),
      (c) => c?.state === "stopped",
    );
    expect(channel?.stoppedAt).toBe(clock.now());
    expect(logger.lines.some((l) => l.includes("channel gone upstream, recorded as stopped"))).toBe(true);
  });

  test("drops an undecodable event and keeps going", async () => {
    await bus.publish(subjects.channelObserved(PCK), new Uint8Array([0xff, 0xff, 0xff]));
    await publish(watched("ch-1"));
    await eventually(() => get("ch-1"), exists);
    expect(logger.lines.some((l) => l.includes("undecodable channel event dropped"))).toBe(true);
  });

  test("renewal: the old channel stopped, only the new one lists as active", async () => {
    // spec: Customer-side scripts, renewal sync: new channel first, then stop the old one.
    await publish(watched("ch-old"));
    await clock.advance(DAY);
    await publish(watched("ch-new"));
    await clock.advance(500);
    await publish(stopped("ch-old", "res-1"));
    await eventually(
      () => get("ch-old"),
      (c) => c?.state === "stopped",
    );

    const impl = createChannelService({ store, tokens, clock, logger, environment: async () => ENV });
    const transport = createRouterTransport((router) => router.service(ChannelService, impl), {
      router: { interceptors: [errorBoundary(logger)] },
    });
    const active = await createClient(ChannelService, transport).listChannels({
      connectionId: "conn-a",
      state: ChannelState.ACTIVE,
    });
    expect(active.channels.map((c) => c.id)).toEqual(["ch-new"]);
    const all = await store.list(ENV, { connectionId: "conn-a" }, clock.now());
    expect(all.map((c) => [c.id, c.state])).toEqual([
      ["ch-new", "active"],
      ["ch-old", "stopped"],
    ]);
  });

  const renewed = (channelId: string, expirationMs: number, over: Init = {}): Init => ({
    call: ChannelCall.RENEW,
    environmentId: ENV,
    providerConfigKey: PCK,
    connectionId: "conn-a",
    channelId,
    expirationMs: BigInt(expirationMs),
    status: 200,
    atMs: BigInt(clock.now()),
    ...over,
  });

  test("a renewal in place answered 2xx extends the channel; a failed one changes nothing", async () => {
    const first = clock.now() + 3 * DAY;
    await publish(watched("sub-1", { expirationMs: BigInt(first) }));
    await eventually(() => get("sub-1"), exists);
    await clock.advance(DAY);
    await publish(renewed("sub-1", clock.now() + 5 * DAY, { status: 404 }));
    await publish(renewed("sub-1", clock.now() + 6 * DAY));
    const channel = await eventually(
      () => get("sub-1"),
      (c) => c?.expiration !== first,
    );
    expect(channel).toMatchObject({ state: "active", expiration: clock.now() + 6 * DAY });
    expect(tokens.open(channel as ChannelRecord)).toBe("customer-token");
    await clock.advance(4 * DAY);
    expect((await store.markExpired(ENV, clock.now())).map((c) => c.id)).toEqual([]);
  });

  test("a renewal of an unknown channel, or without an expiration, is ignored and logged", async () => {
    await publish(watched("sub-1"));
    await publish(renewed("sub-unknown", clock.now() + 9 * DAY));
    await publish(renewed("sub-1", 0));
    await publish(watched("ch-marker"));
    await eventually(() => get("ch-marker"), exists);
    expect(await get("sub-unknown")).toBeNull();
    expect((await get("sub-1"))?.expiration).toBe(clock.now() + 7 * DAY);
    expect(logger.lines.some((l) => l.includes("channel renewal matched no active channel"))).toBe(true);
    expect(logger.lines.some((l) => l.includes("channel renewal without an expiration ignored"))).toBe(true);
  });

  test("a second mailbox watch of the same connection updates the expiration of its one channel", async () => {
    // Gmail names no channel: its adapter derives the id from the connection, so watch again is the same channel.
    const mail = providerAdapter("google-mail")?.channels;
    const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
    const watchOf = (expiration: number) => {
      const facts = mail?.readCall(
        ChannelCall.WATCH,
        enc({ topicName: "projects/p/topics/t" }),
        enc({ historyId: "1", expiration: String(expiration) }),
        { path: "/gmail/v1/users/me/watch", connectionId: "conn-a" },
      );
      if (!facts) throw new Error("the mailbox watch was not read");
      return watched(facts.channelId, { ...facts, expirationMs: BigInt(facts.expirationMs), token: "" });
    };
    const first = clock.now() + 7 * DAY;
    await publish(watchOf(first));
    const channelId =
      (
        await eventually(
          () => store.list(ENV, {}, clock.now()),
          (l) => l.length === 1,
        )
      )[0]?.id ?? "";
    await clock.advance(DAY);
    await publish(watchOf(clock.now() + 7 * DAY));
    const channel = await eventually(
      () => get(channelId),
      (c) => c?.expiration !== first,
    );
    expect(channel).toMatchObject({ state: "active", expiration: clock.now() + 7 * DAY, connectionId: "conn-a" });
    expect((await store.list(ENV, {}, clock.now())).map((c) => c.id)).toEqual([channelId]);
  });

  test("an unrenewed channel reads as expired once the clock passes its expiration", async () => {
    await publish(watched("ch-1", { expirationMs: BigInt(clock.now() + DAY) }));
    await eventually(() => get("ch-1"), exists);
    await clock.advance(DAY - 1);
    expect((await get("ch-1"))?.state).toBe("active");
    await clock.advance(1);
    expect((await get("ch-1"))?.state).toBe("expired");
    expect((await store.markExpired(ENV, clock.now())).map((c) => c.id)).toEqual(["ch-1"]);
  });
});

describe("applyNotification", () => {
  let store: SqliteChannelStore;
  const at = Date.UTC(2026, 10, 21, 12, 0, 0);

  beforeEach(async () => {
    store = SqliteChannelStore.open(":memory:");
    await store.recordWatch({
      environmentId: ENV,
      channelId: "ch-1",
      resourceId: "res-1",
      providerConfigKey: PCK,
      connectionId: "conn-a",
      resourceUri: "https://calendar.example.test/calendar/v3/calendars/primary/events",
      expiration: at + DAY,
      token: null,
      at,
    });
  });
  afterEach(() => store.close());

  const lastNumber = async () => (await store.get(ENV, "ch-1", at))?.lastMessageNumber;

  test("records the message number from the provider headers", async () => {
    expect(
      await applyNotification(store, ENV, { "x-provider-channel-id": "ch-1", "x-provider-message-number": "3" }, at),
    ).toBe(true);
    expect(await lastNumber()).toBe(3);
  });

  test("reads the x-goog- header names too", async () => {
    expect(
      await applyNotification(store, ENV, { "x-goog-channel-id": "ch-1", "x-goog-message-number": "12" }, at),
    ).toBe(true);
    expect(await lastNumber()).toBe(12);
  });

  test("never lowers the message number of a known channel", async () => {
    await applyNotification(store, ENV, { "x-provider-channel-id": "ch-1", "x-provider-message-number": "8" }, at);
    expect(
      await applyNotification(store, ENV, { "x-provider-channel-id": "ch-1", "x-provider-message-number": "5" }, at),
    ).toBe(true);
    expect(await lastNumber()).toBe(8);
  });

  test("ignores channels not in the registry, or in another environment", async () => {
    const headers = { "x-provider-channel-id": "ch-unknown", "x-provider-message-number": "1" };
    expect(await applyNotification(store, ENV, headers, at)).toBe(false);
    expect(
      await applyNotification(
        store,
        "env_other",
        { "x-provider-channel-id": "ch-1", "x-provider-message-number": "1" },
        at,
      ),
    ).toBe(false);
    expect(await lastNumber()).toBe(0);
  });

  test("ignores notifications without a channel id or a usable message number", async () => {
    expect(await applyNotification(store, ENV, { "x-provider-message-number": "1" }, at)).toBe(false);
    expect(await applyNotification(store, ENV, { "x-provider-channel-id": "ch-1" }, at)).toBe(false);
    expect(
      await applyNotification(store, ENV, { "x-provider-channel-id": "ch-1", "x-provider-message-number": "-4" }, at),
    ).toBe(false);
    expect(await lastNumber()).toBe(0);
  });
});
