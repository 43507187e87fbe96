import { afterEach, describe, expect, test } from "bun:test";
import { DropReason } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { startWebhookKit, type WebhookKit } from "../../testing/webhook-test-kit.ts";
import { readAllWith, type TestRequest, testNotificationAdapter } from "../../testing/test-reader.ts";

// Receipt under the intake limits and strict channels, through ReceiveNotifications
// on the real connection and channel services (a test reader: no provider's format).

let kit: WebhookKit;
afterEach(async () => {
  await kit?.close();
});

async function setup(env: Record<string, string>, integration: { strictChannels?: boolean } = {}, maxItems = 5) {
  kit = await startWebhookKit({ env, notificationAdapterOf: readAllWith(testNotificationAdapter({ maxItems })) });
  await kit.connections.createIntegration({ uniqueKey: "cal", provider: "google-calendar", ...integration });
  const send = (request: TestRequest) => {
    const body = new TextEncoder().encode(JSON.stringify(request));
    return kit.receive({ environmentId: kit.environmentId, providerConfigKey: "cal", headers: {}, body });
  };
  const one = (channelId: string, n = 1) => send({ items: [{ channelId, messageNumber: n }] });
  return { k: kit, send, one };
}

async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const recorded = async (k: WebhookKit) => (await k.store.listMessages(k.environmentId, {}, 100)).length;

async function registerChannel(k: WebhookKit, channelId: string) {
  await k.channelStore.recordWatch({
    environmentId: k.environmentId,
    channelId,
    resourceId: `res-${channelId}`,
    providerConfigKey: "cal",
    connectionId: "",
    resourceUri: "",
    expiration: null,
    token: "",
    at: k.clock.now(),
  });
}

describe("intake rate limits", () => {
  test("past the integration's rate nothing is recorded and the answer says when to send again", async () => {
    const { k, one } = await setup({
      JUNCTION_WEBHOOK_INTAKE_INTEGRATION_RATE: "1",
      JUNCTION_WEBHOOK_INTAKE_INTEGRATION_BURST: "2",
      JUNCTION_WEBHOOK_INTAKE_CHANNEL_RATE: "0",
    });
    expect((await one("a")).notificationId).not.toBe("");
    expect((await one("b")).notificationId).not.toBe("");
    const refused = await one("c");
    expect(refused.throttled).toMatchObject({ code: "webhook_rate_limited", retryAfterSeconds: 1 });
    expect(refused.notificationId).toBe("");
    k.clock.advance(1000);
    expect((await one("c")).notificationId).not.toBe("");
    await eventually("three messages", async () => (await recorded(k)) === 3);
  });

  test("past a channel's rate that channel is refused, others are not; a batch naming it is refused whole", async () => {
    const { k, one, send } = await setup({
      JUNCTION_WEBHOOK_INTAKE_CHANNEL_RATE: "1",
      JUNCTION_WEBHOOK_INTAKE_CHANNEL_BURST: "1",
    });
    await one("busy", 1);
    expect((await one("busy", 2)).throttled).toMatchObject({ code: "channel_rate_limited", retryAfterSeconds: 1 });
    expect((await one("quiet", 1)).throttled).toBeUndefined();
    const batch = await send({ items: [{ channelId: "other" }, { channelId: "busy", messageNumber: 3 }] });
    expect(batch.throttled?.code).toBe("channel_rate_limited");
    expect(batch.notificationIds).toEqual([]);
    await eventually("two messages", async () => (await recorded(k)) === 2);
  });
});

describe("the cap on pending work", () => {
  test("is reached by notifications not yet processed, and frees once they are", async () => {
    const { k, one } = await setup({
      JUNCTION_WEBHOOK_INTAKE_MAX_PENDING: "2",
      JUNCTION_WEBHOOK_INTAKE_PENDING_RECOUNT: "1s",
      JUNCTION_WEBHOOK_INTAKE_FULL_RETRY_AFTER: "20s",
    });
    // The channel service down holds the worker back: both stay on the inbound queue.
    k.channelDown = true;
    await one("a");
    await one("b");
    expect((await one("c")).throttled).toMatchObject({ code: "webhook_backlog_full", retryAfterSeconds: 20 });
    k.channelDown = false;
    // The worker's retry is due on the manual clock; with no endpoint the messages end at once.
    await eventually("both processed", async () => {
      k.clock.advance(2000);
      const list = await k.store.listMessages(k.environmentId, {}, 10);
      return list.length === 2 && list.every((m) => m.status === "exhausted");
    });
    k.clock.advance(1000);
    expect((await one("c")).throttled).toBeUndefined();
  });

  test("counts the integration's messages not yet delivered, from the store", async () => {
    const { k, one } = await setup({ JUNCTION_WEBHOOK_INTAKE_MAX_PENDING: "2", JUNCTION_WEBHOOK_RETRY_SCHEDULE: "1h" });
    await one("a");
    await one("b");
    // Processed (so no longer counted in memory), their messages wait an hour for their first attempt.
    await eventually(
      "two pending messages",
      async () => (await k.store.countPending(k.environmentId, "cal", 10)) === 2,
    );
    k.clock.advance(1000);
    expect((await one("c")).throttled?.code).toBe("webhook_backlog_full");
  });
});

describe("strict channels", () => {
  test("a notification for a channel the registry does not hold is dropped, one it holds recorded", async () => {
    // One notification a request: the whole request is dropped (the gateway's 404 unknown_channel).
    const { k, one } = await setup({}, { strictChannels: true }, 1);
    await registerChannel(k, "known");
    const dropped = await one("made-up");
    expect(dropped).toMatchObject({ dropped: true, dropReason: DropReason.UNKNOWN_CHANNEL, notificationId: "" });
    expect((await one("known")).notificationId).not.toBe("");
    await eventually("one message", async () => (await recorded(k)) === 1);
  });

  test("a batch keeps its known items and its email-matched ones; not strict, unknown channels are recorded", async () => {
    const { k, send } = await setup({}, { strictChannels: true });
    await registerChannel(k, "known");
    const res = await send({
      items: [
        { channelId: "made-up", dedupeKey: "1" },
        { channelId: "known", dedupeKey: "2" },
        { dedupeKey: "3" },
        { dedupeKey: "4", match: { by: "email", email: "pat@example.com" } },
      ],
    });
    expect(res.notificationIds).toHaveLength(2);
    await k.connections.updateIntegration({ uniqueKey: "cal", strictChannels: false });
    const lenient = await send({ items: [{ channelId: "made-up", dedupeKey: "5" }] });
    expect(lenient.notificationIds).toHaveLength(1);
  });

  test("when the registry cannot be reached at receipt, the worker drops an unknown channel's notification", async () => {
    const { k, one } = await setup({}, { strictChannels: true }, 1);
    await registerChannel(k, "known");
    k.channelDown = true;
    expect((await one("made-up")).notificationId).not.toBe("");
    expect((await one("known")).notificationId).not.toBe("");
    k.channelDown = false;
    await eventually("the unknown one dropped by the worker", async () => {
      k.clock.advance(2000);
      return k.logs.some((l) => l.includes("strict integration") && l.includes("made-up"));
    });
    await eventually("the known one forwarded", async () => (await recorded(k)) === 1);
    k.clock.advance(60_000);
    expect(await recorded(k)).toBe(1);
  });
});
