import { afterEach, describe, expect, test } from "bun:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { subjects } from "@junction/bus";
import { ChannelCall, ChannelObservedSchema } from "@junction/contracts/events/v1/events_pb";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import {
  addConnection,
  bodies,
  type CustomerReceiver,
  environmentId,
  eventsUri,
  googHeaders,
  notify,
  providerHeaders,
  setupCalendar,
  startCustomerReceiver,
  waitForMessages,
} from "./notifications-kit.ts";

const URI = eventsUri("kim@example.com");
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(options: { dataDir?: string } = {}) {
  const j = await startTestJunction(options);
  cleanups.push(() => j.close({ keepData: Boolean(options.dataDir) }));
  return j;
}

function receiver(): CustomerReceiver {
  const rx = startCustomerReceiver();
  cleanups.push(() => rx.stop());
  return rx;
}

/** Waits until the log holds `n` messages, then checks nothing else follows a marker notification. */
async function settleOn(j: TestJunction, rx: CustomerReceiver, n: number): Promise<void> {
  await rx.waitFor(n);
  const marker = `marker-${rx.received.length}`;
  expect((await notify(j, googHeaders(URI, { channelId: marker }))).status).toBe(200);
  await rx.waitFor(n + 1);
  expect(rx.received).toHaveLength(n + 1);
}

describe("de-duplication (same channel id and message number)", () => {
  test("a notification received twice is forwarded once; the second answer says duplicate", async () => {
    const j = await start();
    const rx = receiver();
    await setupCalendar(j, [rx.url]);
    await addConnection(j, "kim", { metadata: { calendarWatchResourceUris: [URI] } });
    const first = await notify(j, googHeaders(URI, { channelId: "dup-ch", number: 7 }));
    await rx.waitFor(1);
    const second = await notify(j, googHeaders(URI, { channelId: "dup-ch", number: 7 }));
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual({ id: first.body.data.id, duplicate: true });
    await settleOn(j, rx, 1);
  });

  test("a duplicate arriving at once (before the first is processed) is still forwarded once", async () => {
    const j = await start();
    const rx = receiver();
    await setupCalendar(j, [rx.url]);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => notify(j, providerHeaders(URI, { channelId: "burst-ch", number: 3 }))),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    await settleOn(j, rx, 1);
    expect(bodies(rx.received.slice(0, 1))[0]?.payload["x-provider-channel-id"]).toBe("burst-ch");
  });

  test("other message numbers and other channels are not duplicates", async () => {
    const j = await start();
    const rx = receiver();
    await setupCalendar(j, [rx.url]);
    for (const [channelId, number] of [
      ["c1", 1],
      ["c1", 2],
      ["c2", 1],
    ] as const) {
      expect((await notify(j, googHeaders(URI, { channelId, number }))).status).toBe(200);
    }
    await settleOn(j, rx, 3);
  });

  test("is remembered in the store: a duplicate after a restart is still forwarded once", async () => {
    const dir = tempDir();
    cleanups.push(async () => dir.remove());
    const rx = receiver();
    const first = await start({ dataDir: dir.path });
    await setupCalendar(first, [rx.url]);
    expect((await notify(first, googHeaders(URI, { channelId: "restart-ch", number: 9 }))).status).toBe(200);
    await rx.waitFor(1);
    await first.close({ keepData: true });
    cleanups.shift();

    const second = await start({ dataDir: dir.path });
    const again = await notify(second, googHeaders(URI, { channelId: "restart-ch", number: 9 }));
    expect(again.body.data.duplicate).toBe(true);
    await settleOn(second, rx, 1);
  });
});

describe("channel tokens", () => {
  /** Records a channel with a token, as the proxy does when it sees a watch call succeed. */
  async function registerChannel(j: TestJunction, channelId: string, token: string): Promise<void> {
    const event = create(ChannelObservedSchema, {
      call: ChannelCall.WATCH,
      environmentId: await environmentId(j),
      providerConfigKey: "cal",
      connectionId: "kim",
      channelId,
      resourceId: "resource-1",
      resourceUri: URI,
      status: 200,
      token,
      atMs: BigInt(Date.now()),
    });
    await j.bus.publish(subjects.channelObserved("cal"), toBinary(ChannelObservedSchema, event));
    await waitFor("the channel in the registry", () =>
      j.clients.channel.getChannel({ id: channelId }).then(
        (r) => r.channel,
        () => null,
      ),
    );
  }

  test("a notification whose token does not match is dropped with a 403 and never forwarded", async () => {
    const j = await start();
    const rx = receiver();
    await setupCalendar(j, [rx.url]);
    await addConnection(j, "kim", { metadata: { calendarWatchResourceUris: [URI] } });
    await registerChannel(j, "tok-ch", "the-right-token");

    const wrong = await notify(j, googHeaders(URI, { channelId: "tok-ch", number: 1, token: "a-wrong-token" }));
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe("channel_token_mismatch");
    const missing = await notify(j, googHeaders(URI, { channelId: "tok-ch", number: 2 }));
    expect(missing.status).toBe(403);

    const right = await notify(j, googHeaders(URI, { channelId: "tok-ch", number: 3, token: "the-right-token" }));
    expect(right.status).toBe(200);
    await settleOn(j, rx, 1);
    expect(bodies(rx.received.slice(0, 1))[0]?.payload["x-goog-message-number"]).toBe("3");
    const logged = j.logLines.join("\n");
    expect(logged).toContain("channel token does not match");
    expect(logged).not.toContain("the-right-token");
    expect(logged).not.toContain("a-wrong-token");
    // The dropped ones did not take the message number: the channel shows the accepted one.
    const { channel } = await j.clients.channel.getChannel({ id: "tok-ch" });
    expect(channel?.lastMessageNumber).toBe(3n);
  });

  test("a channel created without a token, or unknown to the registry, is not checked", async () => {
    const j = await start();
    const rx = receiver();
    await setupCalendar(j, [rx.url]);
    await registerChannel(j, "no-token-ch", "");
    expect((await notify(j, googHeaders(URI, { channelId: "no-token-ch", token: "anything" }))).status).toBe(200);
    expect((await notify(j, googHeaders(URI, { channelId: "unknown-ch", token: "anything" }))).status).toBe(200);
    await waitForMessages(j, 2);
    await settleOn(j, rx, 2);
  });
});
