import { describe, expect, test } from "bun:test";
import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import type { ChannelCreation, ChannelRef, UpstreamCall } from "../adapter.ts";
import { providerAdapter } from "../index.ts";
import { gmailWatches, readWatchCall, watchCallOf, watchChannelId } from "./watch-calls.ts";

// Gmail's mailbox watches (https://developers.google.com/workspace/gmail/api/guides/push)
// as the channel registry sees them, and as Junction makes them itself.

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const NONE = new Uint8Array(0);
const TOPIC = "projects/my-project/topics/gmail";
const DAY = 24 * 3600 * 1000;

const creation = (settings: Record<string, string>): ChannelCreation => ({
  channelId: "ch-fresh",
  token: "secret",
  webhookUrl: "https://junction.example/webhook/env/mail",
  settings,
  now: 1_700_000_000_000,
});

describe("recognising watch and stop calls", () => {
  test("POST users/{id}/watch and users/{id}/stop, with or without the leading slash or a query", () => {
    expect(watchCallOf("POST", "/gmail/v1/users/me/watch")).toBe(ChannelCall.WATCH);
    expect(watchCallOf("POST", "gmail/v1/users/alice@example.com/watch?alt=json")).toBe(ChannelCall.WATCH);
    expect(watchCallOf("POST", "/gmail/v1/users/me/stop")).toBe(ChannelCall.STOP);
    expect(watchCallOf("GET", "/gmail/v1/users/me/watch")).toBeUndefined();
    expect(watchCallOf("POST", "/gmail/v1/users/me/messages")).toBeUndefined();
    expect(watchCallOf("POST", "/calendar/v3/channels/stop")).toBeUndefined();
  });

  test("the Gmail adapter carries these channels and its settings", () => {
    const gmail = providerAdapter("google-mail");
    expect(gmail?.channels).toBe(gmailWatches);
    expect(gmail?.integrationSettings?.map((s) => s.key)).toEqual([
      "pubsub_audience",
      "pubsub_service_account_email",
      "pubsub_jwks_url",
      "pubsub_topic",
    ]);
    expect(providerAdapter("google-calendar")?.channels?.callOf("POST", "/gmail/v1/users/me/stop")).toBeUndefined();
  });
});

describe("reading a watch or stop call", () => {
  test("a watch names the connection's one channel, the topic and the answer's expiration", () => {
    const facts = readWatchCall(
      ChannelCall.WATCH,
      bytes({ topicName: TOPIC, labelIds: ["INBOX"], labelFilterBehavior: "INCLUDE" }),
      bytes({ historyId: "1234567", expiration: "1700604800000" }),
      { connectionId: "conn-alice" },
    );
    expect(facts).toEqual({
      channelId: "gmail-watch-conn-alice",
      resourceId: "",
      resourceUri: TOPIC,
      expirationMs: 1700604800000,
      token: "",
    });
  });

  test("a stop names the same channel and resource id, so the registry matches it to its watch", () => {
    const facts = readWatchCall(ChannelCall.STOP, NONE, NONE, { connectionId: "conn-alice" });
    expect(facts).toMatchObject({ channelId: "gmail-watch-conn-alice", resourceId: "" });
  });

  test("without a connection there is no channel; bodies that are not JSON read as empty", () => {
    expect(readWatchCall(ChannelCall.WATCH, NONE, NONE, { connectionId: "" })).toBeNull();
    const facts = readWatchCall(ChannelCall.WATCH, bytes("x"), new TextEncoder().encode("{oops"), {
      connectionId: "c",
    });
    expect(facts).toMatchObject({ resourceUri: "", expirationMs: 0 });
  });

  test("channel ids stay within 64 characters and stable for long connection ids", () => {
    const long = "c".repeat(200);
    expect(watchChannelId(long).length).toBeLessThanOrEqual(64);
    expect(watchChannelId(long)).toBe(watchChannelId(long));
    expect(watchChannelId(long)).not.toBe(watchChannelId(`${long}x`));
    expect(watchChannelId("c".repeat(52))).toBe(`gmail-watch-${"c".repeat(52)}`);
  });
});

describe("Junction's own watch calls (managed channels)", () => {
  test("stop is POST users/me/stop without a body", () => {
    const channel: ChannelRef = {
      id: "gmail-watch-c",
      resourceId: "",
      resourceUri: TOPIC,
      connectionId: "c",
      expirationMs: 0,
      token: "",
    };
    expect(gmailWatches.stopCall(channel)).toEqual({ method: "POST", path: "/gmail/v1/users/me/stop" });
  });

  test("create watches the inbox on the integration's topic; renew is the same watch again", () => {
    const input = creation({ pubsub_topic: TOPIC });
    const call: UpstreamCall = {
      method: "POST",
      path: "/gmail/v1/users/me/watch",
      body: JSON.stringify({ topicName: TOPIC, labelIds: ["INBOX"] }),
    };
    expect(gmailWatches.create?.(input)).toEqual(call);
    const renew = gmailWatches.renew;
    if (typeof renew !== "function") throw new Error("renew is not a call");
    const ref = { id: "x", resourceId: "", resourceUri: TOPIC, connectionId: "c", expirationMs: 0, token: "" };
    expect(renew(ref, input)).toEqual(call);
  });

  test("create without a topic setting is refused, naming the setting", () => {
    expect(() => gmailWatches.create?.(creation({}))).toThrow(/pubsub_topic/);
  });

  test("the created watch's answer gives its expiration; an answer without one is not a watch", () => {
    const input = creation({ pubsub_topic: TOPIC });
    expect(gmailWatches.readCreated?.(input, bytes({ historyId: "1", expiration: "1700604800000" }))).toEqual({
      channelId: "ch-fresh",
      resourceId: "",
      resourceUri: TOPIC,
      expirationMs: 1700604800000,
      token: "",
    });
    expect(gmailWatches.readCreated?.(input, bytes({ error: { code: 400 } }))).toBeNull();
  });

  test("limits: at most 7 days, renewed a day after each watch (Google recommends daily)", () => {
    expect(gmailWatches.maxLifetimeMs).toBe(7 * DAY);
    expect(gmailWatches.maxLifetimeMs - gmailWatches.renewMarginMs).toBe(DAY);
  });
});
