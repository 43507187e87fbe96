import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { ChannelService, ChannelState } from "@junction/contracts/channel/v1/channel_service_pb";
import { errorBoundary, fromConnectError, ManualClock, memoryLogger } from "@junction/platform";
import { createChannelService } from "./service.ts";
import type { ChannelWatch } from "./store/records.ts";
import { SqliteChannelStore } from "./store/sqlite-store.ts";
import type { ChannelStore } from "./store/store.ts";
import { testTokens } from "../testing/test-tokens.ts";
const tokens = testTokens();

const ENV = "env_service_test";
const HOUR = 3_600_000;

describe("ChannelService", () => {
  let store: ChannelStore;
  let clock: ManualClock;
  let client: ReturnType<typeof createClient<typeof ChannelService>>;
  let logger: ReturnType<typeof memoryLogger>;

  beforeEach(() => {
    store = SqliteChannelStore.open(":memory:");
    clock = new ManualClock();
    logger = memoryLogger();
    const impl = createChannelService({ store, tokens, clock, logger, environment: async () => ENV });
    const transport = createRouterTransport((router) => router.service(ChannelService, impl), {
      router: { interceptors: [errorBoundary(logger)] },
    });
    client = createClient(ChannelService, transport);
  });
  afterEach(() => store.close());

  const watch = (channelId: string, over: Partial<ChannelWatch> = {}): Promise<unknown> =>
    store.recordWatch({
      environmentId: ENV,
      channelId,
      resourceId: "res-1",
      providerConfigKey: "google-calendar",
      connectionId: "conn-a",
      resourceUri: "https://calendar.example.test/calendar/v3/calendars/primary/events",
      expiration: clock.now() + 7 * 24 * HOUR,
      token: "shared-secret",
      at: clock.now(),
      ...over,
    });

  test("GetChannel returns the channel with millisecond fields as bigints", async () => {
    const created = clock.now();
    await watch("ch-1", { expiration: created + HOUR });
    await store.recordNotification(ENV, "ch-1", 42, created + 10);
    const { channel } = await client.getChannel({ id: "ch-1" });
    expect(channel).toMatchObject({
      id: "ch-1",
      resourceId: "res-1",
      providerConfigKey: "google-calendar",
      connectionId: "conn-a",
      resourceUri: "https://calendar.example.test/calendar/v3/calendars/primary/events",
      expirationMs: BigInt(created + HOUR),
      state: ChannelState.ACTIVE,
      createdAtMs: BigInt(created),
      lastMessageNumber: 42n,
    });
  });

  test("GetChannel reports an unknown channel as not found with code unknown_channel", async () => {
    const err = await client.getChannel({ id: "ch-missing" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.NotFound);
    expect(fromConnectError(err).code).toBe("unknown_channel");
  });

  test("GetChannel without an id is an invalid request", async () => {
    const err = fromConnectError(await client.getChannel({ id: "" }).catch((e: unknown) => e));
    expect(err.status).toBe(Code.InvalidArgument);
    expect(err.errors).toEqual([{ path: "id", message: "is required" }]);
  });

  test("an unknown expiration reads as 0", async () => {
    await watch("ch-1", { expiration: null });
    expect((await client.getChannel({ id: "ch-1" })).channel?.expirationMs).toBe(0n);
  });

  test("a channel past its expiration reads as expired as the clock moves", async () => {
    await watch("ch-1", { expiration: clock.now() + HOUR });
    expect((await client.getChannel({ id: "ch-1" })).channel?.state).toBe(ChannelState.ACTIVE);
    await clock.advance(HOUR);
    expect((await client.getChannel({ id: "ch-1" })).channel?.state).toBe(ChannelState.EXPIRED);
    const active = await client.listChannels({ state: ChannelState.ACTIVE });
    expect(active.channels).toEqual([]);
    const expired = await client.listChannels({ state: ChannelState.EXPIRED });
    expect(expired.channels.map((c) => c.id)).toEqual(["ch-1"]);
  });

  test("ListChannels lists newest first; state UNSPECIFIED means every state", async () => {
    await watch("ch-1");
    await clock.advance(1000);
    await watch("ch-2", { connectionId: "conn-b" });
    await clock.advance(1000);
    await watch("ch-3", { providerConfigKey: "other-calendar" });
    await store.recordStop(ENV, "ch-1", "res-1", clock.now());
    const ids = async (req: Parameters<typeof client.listChannels>[0]) =>
      (await client.listChannels(req)).channels.map((c) => c.id);
    expect(await ids({})).toEqual(["ch-3", "ch-2", "ch-1"]);
    expect(await ids({ state: ChannelState.UNSPECIFIED })).toEqual(["ch-3", "ch-2", "ch-1"]);
    expect(await ids({ state: ChannelState.STOPPED })).toEqual(["ch-1"]);
    expect(await ids({ state: ChannelState.ACTIVE })).toEqual(["ch-3", "ch-2"]);
    expect(await ids({ providerConfigKey: "google-calendar" })).toEqual(["ch-2", "ch-1"]);
    expect(await ids({ connectionId: "conn-b" })).toEqual(["ch-2"]);
    expect(await ids({ providerConfigKey: "google-calendar", state: ChannelState.ACTIVE })).toEqual(["ch-2"]);
  });

  test("ListChannels rejects a state it does not know", async () => {
    const err = fromConnectError(await client.listChannels({ state: 9 as ChannelState }).catch((e: unknown) => e));
    expect(err.status).toBe(Code.InvalidArgument);
    expect(err.code).toBe("invalid_request");
  });

  test("ListChannels with expiring_within_ms lists channels expiring before the clock's now plus it", async () => {
    await watch("ch-soon", { expiration: clock.now() + HOUR });
    await watch("ch-later", { expiration: clock.now() + 30 * HOUR });
    await watch("ch-unknown", { expiration: null });
    const ids = async (expiringWithinMs: bigint) =>
      (await client.listChannels({ state: ChannelState.ACTIVE, expiringWithinMs })).channels.map((c) => c.id);
    expect(await ids(BigInt(2 * HOUR))).toEqual(["ch-soon"]);
    expect(await ids(0n)).toEqual(["ch-unknown", "ch-soon", "ch-later"]);
    await clock.advance(29 * HOUR);
    expect(await ids(BigInt(2 * HOUR))).toEqual(["ch-later"]);
    for (const bad of [-1n, BigInt(367 * 24 * HOUR)]) {
      const err = fromConnectError(await client.listChannels({ expiringWithinMs: bad }).catch((e: unknown) => e));
      expect(err.errors).toEqual([{ path: "expiring_within_ms", message: "must be between 0 and 366 days" }]);
    }
  });

  test("StopChannels needs an integration, and a way to reach the upstream", async () => {
    const missing = fromConnectError(await client.stopChannels({}).catch((e: unknown) => e));
    expect(missing.errors).toEqual([{ path: "provider_config_key", message: "is required" }]);
    // This service was built without a proxy client.
    const unavailable = fromConnectError(
      await client.stopChannels({ providerConfigKey: "google-calendar" }).catch((e: unknown) => e),
    );
    expect(unavailable).toMatchObject({ code: "channel_stops_unavailable", status: Code.Unavailable });
  });

  test("a store failure becomes Internal, its cause logged and not sent", async () => {
    await store.close();
    store = SqliteChannelStore.open(":memory:"); // for afterEach; the service still holds the closed one
    const err = await client.listChannels({}).catch((e: unknown) => e);
    expect((err as ConnectError).code).toBe(Code.Internal);
    expect((err as ConnectError).rawMessage).toBe("internal error");
    expect(logger.lines.some((l) => l.includes("unhandled error in RPC"))).toBe(true);
  });
});
