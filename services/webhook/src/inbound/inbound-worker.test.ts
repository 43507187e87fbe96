import { afterEach, describe, expect, test } from "bun:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { create, toBinary } from "@bufbuild/protobuf";
import { queues } from "@junction/bus";
import { MatchRule } from "@junction/contracts/connection/v1/connection_service_pb";
import { NotificationReceivedSchema } from "@junction/contracts/events/v1/events_pb";
import { newId } from "@junction/platform";
import { startWebhookKit, type WebhookKit } from "../../testing/webhook-test-kit.ts";
import { derivedMessageId } from "./forward-message.ts";
import type { MatchedNotification, NotificationSink } from "@junction/wiring";

const URI = "https://www.googleapis.com/calendar/v3/calendars/pat%40example.com/events?alt=json";

let kit: WebhookKit;
afterEach(async () => {
  await kit?.close();
});

async function setup(options: Parameters<typeof startWebhookKit>[0] = {}) {
  kit = await startWebhookKit(options);
  await kit.connections.createIntegration({ uniqueKey: "cal", provider: "google-calendar" });
  for (const id of ["pat", "pam"]) {
    await kit.connections.createConnection({
      providerConfigKey: "cal",
      connectionId: id,
      metadata: { calendarWatchResourceUris: [URI] } as JsonObject,
    });
  }
  return kit;
}

/** Waits, without sleeping blindly, until `check` holds (real time; the workers run on the event loop). */
async function eventually<T>(what: string, check: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const headers = (channelId: string, number: number, token?: string) => ({
  "x-goog-channel-id": channelId,
  "x-goog-message-number": String(number),
  "x-goog-resource-uri": URI,
  ...(token ? { "x-goog-channel-token": token } : {}),
});

async function registerChannel(k: WebhookKit, channelId: string, token: string): Promise<void> {
  await k.channelStore.recordWatch({
    environmentId: k.environmentId,
    channelId,
    resourceId: "res-1",
    providerConfigKey: "cal",
    connectionId: "pat",
    resourceUri: URI,
    expiration: null,
    token,
    at: k.clock.now(),
  });
}

describe("the inbound worker", () => {
  test("forwards once per matching connection, with message ids derived from the notification", async () => {
    const k = await setup();
    const res = await k.receive({
      environmentId: k.environmentId,
      providerConfigKey: "cal",
      headers: headers("ch-1", 1),
    });
    const messages = await eventually("two messages", async () => {
      const list = await k.store.listMessages(k.environmentId, {}, 10);
      return list.length === 2 ? list : null;
    });
    expect(messages.map((m) => m.connectionId).sort()).toEqual(["pam", "pat"]);
    for (const m of messages) {
      expect(m.id).toBe(derivedMessageId(res.notificationId, m.connectionId));
      expect(m.notificationId).toBe(res.notificationId);
    }
  });

  test("processing the same notification again (a crash before the ack) creates no second message", async () => {
    const k = await setup();
    const n = create(NotificationReceivedSchema, {
      id: newId("ntf", k.clock.now()),
      environmentId: k.environmentId,
      providerConfigKey: "cal",
      headers: headers("ch-again", 4),
      receivedAtMs: BigInt(k.clock.now()),
      channelChecked: true,
    });
    // The same job twice, as a redelivery after a crash would bring it.
    for (let i = 0; i < 2; i++) await k.bus.enqueue(queues.webhookInbound, toBinary(NotificationReceivedSchema, n));
    await eventually(
      "both jobs processed",
      async () => (await k.store.listMessages(k.environmentId, {}, 10)).length >= 2,
    );
    await k.receive({
      environmentId: k.environmentId,
      providerConfigKey: "cal",
      headers: headers("ch-later", 1),
    });
    await eventually(
      "a later notification's messages",
      async () => (await k.store.listMessages(k.environmentId, {}, 10)).length >= 4,
    );
    const mine = (await k.store.listMessages(k.environmentId, {}, 10)).filter((m) => m.notificationId === n.id);
    expect(mine.map((m) => m.id).sort()).toEqual([derivedMessageId(n.id, "pam"), derivedMessageId(n.id, "pat")].sort());
  });

  test("a job handed over with the event its bytes encode is processed from that event; other jobs from their bytes", async () => {
    const k = await setup();
    const event = (channelId: string) =>
      create(NotificationReceivedSchema, {
        id: newId("ntf", k.clock.now()),
        environmentId: k.environmentId,
        providerConfigKey: "cal",
        headers: headers(channelId, 1),
        receivedAtMs: BigInt(k.clock.now()),
        channelChecked: true,
      });
    // Made to differ here only to tell which one the worker read: receipt hands over the event it encoded.
    const [inBytes, handedOver, notAnEvent] = [event("ch-bytes"), event("ch-decoded"), event("ch-plain")];
    await k.bus.enqueue(queues.webhookInbound, toBinary(NotificationReceivedSchema, inBytes), { decoded: handedOver });
    await k.bus.enqueue(queues.webhookInbound, toBinary(NotificationReceivedSchema, notAnEvent), {
      decoded: { id: "not a NotificationReceived" },
    });
    const messages = await eventually("four messages", async () => {
      const list = await k.store.listMessages(k.environmentId, {}, 10);
      return list.length === 4 ? list : null;
    });
    expect([...new Set(messages.map((m) => m.notificationId))].sort()).toEqual([handedOver.id, notAnEvent.id].sort());
  });

  test("records a notification while the channel registry is down, and checks its token before forwarding", async () => {
    const k = await setup();
    await registerChannel(k, "ch-down", "the-token");
    await registerChannel(k, "ch-down-ok", "the-token");
    k.channelDown = true;
    const res = await k.receive({
      environmentId: k.environmentId,
      providerConfigKey: "cal",
      headers: headers("ch-down", 1, "some-token"),
    });
    const ok = await k.receive({
      environmentId: k.environmentId,
      providerConfigKey: "cal",
      headers: headers("ch-down-ok", 1, "the-token"),
    });
    expect(res.notificationId).toMatch(/^ntf_/);
    expect(res.dropped).toBe(false);
    expect(ok.dropped).toBe(false);
    await eventually(
      "the worker to find the registry down",
      async () => k.logs.filter((l) => l.includes("notification not processed")).length >= 2,
    );
    expect(await k.store.listMessages(k.environmentId, {}, 10)).toEqual([]);
    k.channelDown = false;
    await k.clock.advance(1000);
    await eventually(
      "the matching one's messages",
      async () => (await k.store.listMessages(k.environmentId, {}, 10)).length === 2,
    );
    await eventually("the other one dropped", async () =>
      k.logs.some((l) => l.includes("does not match") && l.includes(res.notificationId)),
    );
    const messages = await k.store.listMessages(k.environmentId, {}, 10);
    expect(messages.every((m) => m.notificationId === ok.notificationId)).toBe(true);
    // Once the registry answers again, receipt checks the token itself.
    const late = await k.receive({
      environmentId: k.environmentId,
      providerConfigKey: "cal",
      headers: headers("ch-down", 2, "wrong"),
    });
    expect(late).toMatchObject({ dropped: true, notificationId: "" });
  });

  test("lets sinks see every match, and does not forward for the connections they handled", async () => {
    const seen: MatchedNotification[] = [];
    const sink: NotificationSink = {
      name: "test-sync",
      async onNotification(n) {
        seen.push(n);
        return { handledConnectionIds: ["pat"] };
      },
    };
    const k = await setup({ sinks: [sink] });
    await k.receive({
      environmentId: k.environmentId,
      providerConfigKey: "cal",
      headers: headers("ch-sink", 1),
    });
    const messages = await eventually("one message", async () => {
      const list = await k.store.listMessages(k.environmentId, {}, 10);
      return list.length === 1 ? list : null;
    });
    expect(messages[0]?.connectionId).toBe("pam");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      providerConfigKey: "cal",
      provider: "google-calendar",
      rule: MatchRule.WATCH_URI,
      environmentId: k.environmentId,
    });
    expect([...(seen[0]?.connectionIds ?? [])].sort()).toEqual(["pam", "pat"]);
  });

  test("a sink that throws makes the notification be processed again later, not lost", async () => {
    let failures = 1;
    const sink: NotificationSink = {
      name: "flaky",
      async onNotification() {
        if (failures-- > 0) throw new Error("sink hiccup");
        return undefined;
      },
    };
    const k = await setup({ sinks: [sink] });
    await k.receive({
      environmentId: k.environmentId,
      providerConfigKey: "cal",
      headers: headers("ch-flaky", 1),
    });
    await eventually("the failure to be logged", async () => k.logs.some((l) => l.includes("sink hiccup")));
    await k.clock.advance(1000);
    await eventually("the messages", async () => (await k.store.listMessages(k.environmentId, {}, 10)).length === 2);
  });

  test("drops a notification whose integration was deleted after receipt", async () => {
    const k = await setup({ env: { JUNCTION_WEBHOOK_INBOUND_CONCURRENCY: "1" } });
    await k.connections.createIntegration({ uniqueKey: "gone", provider: "google-calendar" });
    k.channelDown = true; // holds the worker back: the first attempt fails
    await k.receive({
      environmentId: k.environmentId,
      providerConfigKey: "gone",
      headers: headers("ch-gone", 1, "t"),
    });
    await eventually("the worker to be held back", async () =>
      k.logs.some((l) => l.includes("notification not processed")),
    );
    await k.connections.deleteIntegration({ uniqueKey: "gone", force: true });
    k.channelDown = false;
    await k.clock.advance(1000);
    await eventually("the drop", async () => k.logs.some((l) => l.includes("integration no longer exists")));
    expect(await k.store.listMessages(k.environmentId, {}, 10)).toEqual([]);
  });

  test("works from what receipt read from the headers, not from the headers again", async () => {
    const k = await setup();
    const recorded = (number: bigint) =>
      create(NotificationReceivedSchema, {
        id: newId("ntf", k.clock.now()),
        environmentId: k.environmentId,
        providerConfigKey: "cal",
        headers: { "x-goog-resource-state": "exists" },
        receivedAtMs: BigInt(k.clock.now()),
        channelChecked: true,
        headersRead: true,
        channelId: "ch-read",
        messageNumber: number,
        resourceUri: URI,
      });
    const first = recorded(3n);
    await k.bus.enqueue(queues.webhookInbound, toBinary(NotificationReceivedSchema, first));
    const messages = await eventually("two messages", async () => {
      const list = await k.store.listMessages(k.environmentId, {}, 10);
      return list.length === 2 ? list : null;
    });
    expect(messages.map((m) => m.connectionId).sort()).toEqual(["pam", "pat"]);
    const again = recorded(3n);
    await k.bus.enqueue(queues.webhookInbound, toBinary(NotificationReceivedSchema, again));
    await eventually("the duplicate dropped", async () =>
      k.logs.some((l) => l.includes("duplicate notification not forwarded") && l.includes(again.id)),
    );
    expect(await k.store.findNotificationKey(k.environmentId, "ch-read", 3)).toBe(first.id);
  });

  test("checks the token receipt carried when receipt could not check it", async () => {
    const k = await setup();
    await registerChannel(k, "ch-carried", "the-token");
    const n = create(NotificationReceivedSchema, {
      id: newId("ntf", k.clock.now()),
      environmentId: k.environmentId,
      providerConfigKey: "cal",
      headers: headers("ch-carried", 1, "the-token"),
      receivedAtMs: BigInt(k.clock.now()),
      channelChecked: false,
      headersRead: true,
      channelId: "ch-carried",
      messageNumber: 1n,
      resourceUri: URI,
      channelToken: "wrong",
    });
    await k.bus.enqueue(queues.webhookInbound, toBinary(NotificationReceivedSchema, n));
    await eventually("the drop", async () => k.logs.some((l) => l.includes("does not match") && l.includes(n.id)));
    expect(await k.store.listMessages(k.environmentId, {}, 10)).toEqual([]);
  });

  test("a notification recorded by an older version, its headers unread at receipt, is read once and forwarded", async () => {
    const k = await setup();
    const old = create(NotificationReceivedSchema, {
      id: newId("ntf", k.clock.now()),
      environmentId: k.environmentId,
      providerConfigKey: "cal",
      headers: headers("ch-old", 7),
      receivedAtMs: BigInt(k.clock.now()),
      channelChecked: true,
    });
    await k.bus.enqueue(queues.webhookInbound, toBinary(NotificationReceivedSchema, old));
    const messages = await eventually("two messages", async () => {
      const list = await k.store.listMessages(k.environmentId, {}, 10);
      return list.length === 2 ? list : null;
    });
    expect(messages.map((m) => m.connectionId).sort()).toEqual(["pam", "pat"]);
    expect(await k.store.findNotificationKey(k.environmentId, "ch-old", 7)).toBe(old.id);
  });
});
