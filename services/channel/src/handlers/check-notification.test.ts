import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { ChannelService, type CheckNotificationRequestSchema } from "@junction/contracts/channel/v1/channel_service_pb";
import { errorBoundary, fromConnectError, ManualClock, memoryLogger } from "@junction/platform";
import { createChannelService } from "../service.ts";
import { SqliteChannelStore } from "../store/sqlite-store.ts";
import type { ChannelStore } from "../store/store.ts";
import { testTokens } from "../../testing/test-tokens.ts";
const tokens = testTokens();

const ENV = "env_check_test";

describe("CheckNotifications", () => {
  let store: ChannelStore;
  let clock: ManualClock;
  let client: ReturnType<typeof createClient<typeof ChannelService>>;
  /** CheckNotifications with one notification: its result. */
  const checkOne = async (req: MessageInitShape<typeof CheckNotificationRequestSchema>) =>
    (await client.checkNotifications({ requests: [req] })).results[0];

  beforeEach(async () => {
    store = SqliteChannelStore.open(":memory:");
    clock = new ManualClock();
    const logger = memoryLogger();
    const impl = createChannelService({ store, tokens, clock, logger, environment: async () => ENV });
    client = createClient(
      ChannelService,
      createRouterTransport((r) => r.service(ChannelService, impl), {
        router: { interceptors: [errorBoundary(logger)] },
      }),
    );
    for (const [id, token] of [
      ["with-token", "s3cret"],
      ["no-token", null],
    ] as const) {
      await store.recordWatch({
        environmentId: ENV,
        channelId: id,
        resourceId: "r",
        providerConfigKey: "cal",
        connectionId: "c",
        resourceUri: "https://x/calendars/a/events",
        expiration: null,
        token,
        at: clock.now(),
      });
    }
  });
  afterEach(() => store.close());

  test("matches the channel's token, and records the message number only then", async () => {
    expect(await checkOne({ channelId: "with-token", token: "s3cret", messageNumber: 5n })).toMatchObject({
      known: true,
      tokenMatches: true,
    });
    expect(await checkOne({ channelId: "with-token", token: "wrong", messageNumber: 9n })).toMatchObject({
      known: true,
      tokenMatches: false,
    });
    expect(await checkOne({ channelId: "with-token", token: "", messageNumber: 9n })).toMatchObject({
      tokenMatches: false,
    });
    expect((await store.get(ENV, "with-token", clock.now()))?.lastMessageNumber).toBe(5);
  });

  test("a channel without a token, or unknown, has nothing to check", async () => {
    expect(await checkOne({ channelId: "no-token", token: "anything", messageNumber: 2n })).toMatchObject({
      known: true,
      tokenMatches: true,
    });
    expect((await store.get(ENV, "no-token", clock.now()))?.lastMessageNumber).toBe(2);
    expect(await checkOne({ channelId: "unknown", token: "x" })).toMatchObject({
      known: false,
      tokenMatches: true,
    });
    expect(await checkOne({ channelId: "x".repeat(65), token: "x" })).toMatchObject({ known: false });
  });

  test("uses the environment given, and refuses a request without a channel id", async () => {
    expect(await checkOne({ environmentId: "env_other", channelId: "with-token", token: "wrong" })).toMatchObject({
      known: false,
      tokenMatches: true,
    });
    const err = await checkOne({ channelId: "" }).catch((e: unknown) => fromConnectError(e));
    expect(err).toMatchObject({ code: "invalid_request" });
  });

  test("CheckNotifications answers each notification in order, as a batch of one would", async () => {
    const { results } = await client.checkNotifications({
      requests: [
        { channelId: "with-token", token: "s3cret", messageNumber: 4n },
        { channelId: "with-token", token: "wrong", messageNumber: 8n },
        { channelId: "no-token", token: "", messageNumber: 3n },
        { channelId: "unknown", token: "x" },
      ],
    });
    expect(results.map((r) => [r.known, r.tokenMatches])).toEqual([
      [true, true],
      [true, false],
      [true, true],
      [false, true],
    ]);
    expect((await store.get(ENV, "with-token", clock.now()))?.lastMessageNumber).toBe(4);
    expect((await store.get(ENV, "no-token", clock.now()))?.lastMessageNumber).toBe(3);
  });

  test("a batch's message numbers are recorded together, so that they share one transaction of the store", async () => {
    let inFlight = 0;
    let most = 0;
    const counting: ChannelStore = Object.create(store);
    counting.recordNotification = async (...args) => {
      most = Math.max(most, ++inFlight);
      try {
        return await store.recordNotification(...args);
      } finally {
        inFlight--;
      }
    };
    const impl = createChannelService({
      store: counting,
      tokens,
      clock,
      logger: memoryLogger(),
      environment: async () => ENV,
    });
    const batchClient = createClient(
      ChannelService,
      createRouterTransport((r) => r.service(ChannelService, impl)),
    );
    await batchClient.checkNotifications({
      requests: [
        { channelId: "with-token", token: "s3cret", messageNumber: 7n },
        { channelId: "no-token", token: "", messageNumber: 7n },
      ],
    });
    expect(most).toBe(2);
    expect((await store.get(ENV, "no-token", clock.now()))?.lastMessageNumber).toBe(7);
  });

  test("CheckNotifications refuses a batch with a bad request whole, recording nothing", async () => {
    const err = await client
      .checkNotifications({
        requests: [
          { channelId: "with-token", token: "s3cret", messageNumber: 6n },
          { channelId: "", token: "x" },
        ],
      })
      .catch((e: unknown) => fromConnectError(e));
    expect(err).toMatchObject({ code: "invalid_request" });
    expect((await store.get(ENV, "with-token", clock.now()))?.lastMessageNumber ?? 0).toBe(0);
  });
});
