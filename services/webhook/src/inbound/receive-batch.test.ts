import { afterEach, describe, expect, test } from "bun:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ChannelLifecycleEvent } from "@junction/contracts/channel/v1/channel_service_pb";
import { MatchRule } from "@junction/contracts/connection/v1/connection_service_pb";
import { startWebhookKit, type WebhookKit } from "../../testing/webhook-test-kit.ts";
import { readAllWith, type TestRequest, testNotificationAdapter } from "../../testing/test-reader.ts";
import type { MatchedNotification } from "@junction/wiring";

// Receipt and the inbound worker carry what push providers beyond the calendar need, read
// by a test reader here (no provider's format): handshakes, batches, dedupe keys, match modes,
// payloads and lifecycle notifications.

let kit: WebhookKit;
afterEach(async () => {
  await kit?.close();
});

async function setup(options: { maxItems?: number; async?: boolean } = {}) {
  const seen: MatchedNotification[] = [];
  kit = await startWebhookKit({
    notificationAdapterOf: readAllWith(testNotificationAdapter({ maxItems: options.maxItems ?? 3, ...options })),
    sinks: [{ name: "recorder", onNotification: async (n) => void seen.push(n) }],
  });
  await kit.connections.createIntegration({ uniqueKey: "mail", provider: "google-calendar" });
  for (const [id, email] of [
    ["pat", "pat@example.com"],
    ["sam", "sam@example.com"],
  ]) {
    await kit.connections.createConnection({
      providerConfigKey: "mail",
      connectionId: id,
      metadata: { emailAddress: email } as JsonObject,
    });
  }
  const send = (request: TestRequest) => {
    const body = new TextEncoder().encode(JSON.stringify(request));
    return kit.receive({ environmentId: kit.environmentId, providerConfigKey: "mail", headers: {}, body });
  };
  return { k: kit, seen, send };
}

async function eventually<T>(what: string, check: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const messages = (k: WebhookKit) => k.store.listMessages(k.environmentId, {}, 50);
const forwarded = async (k: WebhookKit, count: number) =>
  eventually(`${count} messages`, async () => {
    const list = await messages(k);
    return list.length >= count ? list : null;
  });
const bodyOf = (m: { body: Uint8Array }) => JSON.parse(new TextDecoder().decode(m.body));

async function registerChannel(k: WebhookKit, channelId: string, connectionId: string, token: string, key = "mail") {
  await k.channelStore.recordWatch({
    environmentId: k.environmentId,
    channelId,
    resourceId: `res-${channelId}`,
    providerConfigKey: key,
    connectionId,
    resourceUri: "",
    expiration: null,
    token,
    at: k.clock.now(),
  });
}

describe("a handshake", () => {
  test("is answered as the reader says, and nothing is recorded", async () => {
    const { k, seen, send } = await setup({ async: true });
    const res = await send({ handshake: "validate-me" });
    expect(res.handshake).toMatchObject({ status: 200, contentType: "text/plain" });
    expect(new TextDecoder().decode(res.handshake?.body)).toBe("validate-me");
    expect(res.notificationId).toBe("");
    // A notification sent after it is the first thing the worker sees.
    await send({ items: [{ dedupeKey: "after", match: { by: "email", email: "pat@example.com" } }] });
    await forwarded(k, 1);
    expect(seen).toHaveLength(1);
  });

  test("with an answer above the cap is refused as invalid_notification", async () => {
    const { send } = await setup();
    const err = await send({ handshake: "x".repeat(64 * 1024 + 1) }).catch((e: unknown) => ConnectError.from(e));
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    expect((err as ConnectError).rawMessage).toContain("handshake");
  });
});

describe("a batch", () => {
  test("records each item as its own notification before answering the reader's accept status", async () => {
    const { k, seen, send } = await setup();
    const res = await send({
      acceptStatus: 202,
      items: [
        { dedupeKey: "a", match: { by: "email", email: "pat@example.com" }, payload: { n: 1 } },
        { dedupeKey: "b", match: { by: "email", email: "sam@example.com" }, payload: { n: 2 } },
        { dedupeKey: "c", match: { by: "email", email: "nobody@example.com" }, payload: { n: 3 } },
      ],
    });
    expect(res.acceptStatus).toBe(202);
    expect(res.notificationIds).toHaveLength(3);
    expect(res.notificationId).toBe(res.notificationIds[0] as string);
    const list = await forwarded(k, 3);
    const byConnection = Object.fromEntries(list.map((m) => [m.connectionId, bodyOf(m)]));
    // Each item forwarded on its own, its payload the reader's; the unmatched one once without connectionId.
    expect(byConnection.pat).toMatchObject({ connectionId: "pat", payload: { n: 1 }, type: "forward" });
    expect(byConnection.sam).toMatchObject({ connectionId: "sam", payload: { n: 2 } });
    expect(byConnection[""]).toEqual({
      from: "google-calendar",
      providerConfigKey: "mail",
      payload: { n: 3 },
      type: "forward",
    });
    expect(new Set(seen.map((n) => n.notificationId))).toEqual(new Set(res.notificationIds));
    expect(seen.find((n) => n.connectionIds[0] === "pat")).toMatchObject({
      rule: MatchRule.METADATA_EMAIL_ADDRESS,
      payload: { n: 1 },
    });
  });

  test("over the reader's maxItems is refused with invalid_notification naming the limit, nothing recorded", async () => {
    const { k, send } = await setup({ maxItems: 2 });
    const items = [{ dedupeKey: "1" }, { dedupeKey: "2" }, { dedupeKey: "3" }];
    const err = await send({ items }).catch((e: unknown) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    expect((err as ConnectError).rawMessage).toContain("at most 2");
    await send({ items: [{ dedupeKey: "ok" }] });
    const list = await forwarded(k, 1);
    expect(list).toHaveLength(1);
  });

  test("sent again (the upstream's retry) forwards nothing twice, keyed or not", async () => {
    const { k, send } = await setup();
    const request: TestRequest = { items: [{ dedupeKey: "k-1" }, { payload: { unkeyed: true } }] };
    const first = await send(request);
    await forwarded(k, 2);
    const again = await send(request);
    expect(again.notificationIds).toHaveLength(2);
    await eventually("both duplicates dropped", async () =>
      again.notificationIds.every((id) =>
        k.logs.some((l) => l.includes("duplicate notification not forwarded") && l.includes(id)),
      ),
    );
    const list = await messages(k);
    expect(list).toHaveLength(2);
    expect(new Set(list.map((m) => m.notificationId))).toEqual(new Set(first.notificationIds));
  });

  test("fails (a 5xx, so the upstream retries) when its items cannot be stored", async () => {
    const { k, send } = await setup();
    await k.bus.close();
    const err = await send({ items: [{ dedupeKey: "1" }, { dedupeKey: "2" }] }).catch((e: unknown) =>
      ConnectError.from(e),
    );
    expect(err).toBeInstanceOf(ConnectError);
    // Not a 4xx the upstream would not retry: the gateway answers 500 for Internal, 503 for Unavailable.
    expect([Code.Internal, Code.Unavailable]).toContain((err as ConnectError).code);
  });

  test("drops only the item whose channel token does not match, and still answers the accept status", async () => {
    const { k, send } = await setup();
    await registerChannel(k, "sub-1", "pat", "secret");
    const res = await send({
      acceptStatus: 202,
      items: [
        { channelId: "sub-1", token: "forged", dedupeKey: "x", match: { by: "channel" } },
        { channelId: "sub-1", token: "secret", dedupeKey: "y", match: { by: "channel" } },
      ],
    });
    expect(res.acceptStatus).toBe(202);
    expect(res.dropped).toBe(false);
    expect(res.notificationIds).toHaveLength(1);
    expect(k.logs.some((l) => l.includes("batch item dropped") && l.includes("sub-1"))).toBe(true);
    const [only] = await forwarded(k, 1);
    expect(only?.notificationId).toBe(res.notificationIds[0] as string);
  });
});

describe("the one notification of a single-item reader with a dedupe key", () => {
  test("is answered duplicate with the first id once claimed, and forwarded once", async () => {
    const { k, send } = await setup({ maxItems: 1 });
    const request: TestRequest = { items: [{ dedupeKey: "msg-1", match: { by: "email", email: "pat@example.com" } }] };
    const first = await send(request);
    await forwarded(k, 1);
    const again = await send(request);
    expect(again).toMatchObject({ notificationId: first.notificationId, duplicate: true });
    expect(await messages(k)).toHaveLength(1);
  });
});

describe("matching by channel", () => {
  test("forwards to the connection that created the channel; an unknown channel's or another integration's is dropped and logged", async () => {
    const { k, seen, send } = await setup();
    await registerChannel(k, "sub-sam", "sam", "");
    await registerChannel(k, "sub-other", "pat", "", "other-integration");
    await send({
      items: [
        { channelId: "sub-sam", dedupeKey: "1", match: { by: "channel" } },
        { channelId: "sub-unknown", dedupeKey: "2", match: { by: "channel" } },
        { channelId: "sub-other", dedupeKey: "3", match: { by: "channel" } },
      ],
    });
    await eventually("the unknown channels' items processed", async () =>
      k.logs.filter((l) => l.includes("unknown to the registry")).length === 2 ? true : null,
    );
    const list = await forwarded(k, 1);
    expect(list.map((m) => m.connectionId)).toEqual(["sam"]);
    expect(seen.map((n) => n.connectionIds)).toEqual([["sam"]]);
    expect(seen[0]?.rule).toBe(MatchRule.CHANNEL);
    expect(k.logs.some((l) => l.includes("unknown to the registry") && l.includes("sub-unknown"))).toBe(true);
    expect(k.logs.some((l) => l.includes("unknown to the registry") && l.includes("sub-other"))).toBe(true);
  });
});

describe("one pass", () => {
  test("the channel's connection travels from receipt's check: the worker asks the channel service nothing more", async () => {
    const { k, seen, send } = await setup();
    await registerChannel(k, "sub-pat", "pat", "");
    await send({ items: [{ channelId: "sub-pat", dedupeKey: "1", match: { by: "channel" } }] });
    const list = await forwarded(k, 1);
    expect(list.map((m) => m.connectionId)).toEqual(["pat"]);
    expect(seen[0]?.rule).toBe(MatchRule.CHANNEL);
    expect(seen[0]?.provider).toBe("google-calendar");
    // One check at receipt, no GetChannel and no second check by the worker.
    expect(k.channelCalls.map((c) => c.method)).toEqual(["CheckNotifications"]);
  });
});

describe("lifecycle notifications", () => {
  test("missed is forwarded like a change; reauthorization and removal go to the channel service, not forwarded", async () => {
    const { k, send } = await setup();
    await registerChannel(k, "sub-1", "pat", "");
    await send({
      items: [
        {
          channelId: "sub-1",
          dedupeKey: "m",
          match: { by: "channel" },
          lifecycle: "missed",
          payload: { missed: true },
        },
        { channelId: "sub-1", dedupeKey: "r", match: { by: "channel" }, lifecycle: "reauthorizationRequired" },
        { channelId: "sub-1", dedupeKey: "s", match: { by: "channel" }, lifecycle: "subscriptionRemoved" },
      ],
    });
    const calls = await eventually("both lifecycle calls", async () => {
      const list = k.channelCalls.filter((c) => c.method === "HandleChannelLifecycle");
      return list.length >= 2 ? list : null;
    });
    const events = calls.map((c) => (c.message as { event: ChannelLifecycleEvent }).event);
    expect(new Set(events)).toEqual(
      new Set([ChannelLifecycleEvent.REAUTHORIZATION_REQUIRED, ChannelLifecycleEvent.REMOVED]),
    );
    expect(calls[0]?.message).toMatchObject({ providerConfigKey: "mail", channelId: "sub-1" });
    const forwards = async () => (await messages(k)).filter((m) => m.type === "forward");
    const [missed] = await eventually("the missed item forwarded", async () => {
      const list = await forwards();
      return list.length >= 1 ? list : null;
    });
    expect(bodyOf(missed as { body: Uint8Array })).toMatchObject({ connectionId: "pat", payload: { missed: true } });
    // The lifecycle items are not forwarded as changes: the channel service tells the customer in `channel` messages.
    await k.clock.advance(120_000);
    expect(await forwards()).toHaveLength(1);
    const told = (await messages(k)).filter((m) => m.type === "channel").map((m) => bodyOf(m).operation);
    expect(told.sort()).toEqual(["reauthorization_required", "removed"]);
  });

  test("one naming no channel is dropped and logged, not sent to the channel service", async () => {
    const { k, send } = await setup();
    const res = await send({ items: [{ dedupeKey: "l", lifecycle: "subscriptionRemoved" }] });
    await eventually("the drop logged", async () =>
      k.logs.some((l) => l.includes("names no channel") && l.includes(res.notificationId)),
    );
    expect(k.channelCalls.some((c) => c.method === "HandleChannelLifecycle")).toBe(false);
    expect(await messages(k)).toHaveLength(0);
  });

  test("a failing lifecycle call naks the job: it is tried again", async () => {
    const { k, send } = await setup();
    await send({ items: [{ channelId: "sub-9", dedupeKey: "r9", lifecycle: "reauthorizationRequired" }] });
    k.channelDown = true;
    await eventually("the job retried", async () =>
      k.logs.some((l) => l.includes("notification not processed; it will be tried again")),
    );
    k.channelDown = false;
    const before = k.channelCalls.filter((c) => c.method === "HandleChannelLifecycle").length;
    await k.clock.advance(60_000);
    await eventually(
      "the lifecycle call made again",
      async () => k.channelCalls.filter((c) => c.method === "HandleChannelLifecycle").length > before,
    );
  });
});
