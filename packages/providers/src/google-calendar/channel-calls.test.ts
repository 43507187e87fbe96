import { describe, expect, test } from "bun:test";
import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import { googleCalendar } from "./adapter.ts";

const channels = googleCalendar.channels;
if (!channels) throw new Error("the calendar adapter has channels");
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

describe("the calendar adapter's channel calls (spec: Upstream calendar API calls)", () => {
  test("recognises a watch and a stop by method and path", () => {
    expect(channels.callOf("POST", "/calendar/v3/calendars/a%40b.c/events/watch")).toBe(ChannelCall.WATCH);
    expect(channels.callOf("POST", "/calendar/v3/channels/stop")).toBe(ChannelCall.STOP);
    expect(channels.callOf("GET", "/calendar/v3/calendars/a/events/watch")).toBeUndefined();
    expect(channels.callOf("POST", "/calendar/v3/calendars/a/events")).toBeUndefined();
  });

  test("reads a watch's channel from both bodies, a stop's from its request", () => {
    const at = { path: "/calendar/v3/calendars/a/events/watch", connectionId: "c" };
    const watch = channels.readCall(
      ChannelCall.WATCH,
      bytes({ id: "ch", type: "web_hook", address: "https://x", token: "t", expiration: 5 }),
      bytes({ id: "ch", resourceId: "r", resourceUri: "https://u", expiration: "7" }),
      at,
    );
    expect(watch).toEqual({ channelId: "ch", resourceId: "r", resourceUri: "https://u", expirationMs: 7, token: "t" });
    const stop = channels.readCall(ChannelCall.STOP, bytes({ id: "ch", resourceId: "r" }), new Uint8Array(0), at);
    expect(stop).toEqual({ channelId: "ch", resourceId: "r", resourceUri: "", expirationMs: 0, token: "" });
    expect(channels.readCall(ChannelCall.STOP, bytes({ resourceId: "r" }), new Uint8Array(0), at)).toBeNull();
    const ref = { id: "ch", resourceId: "r", resourceUri: "", connectionId: "c", expirationMs: 0, token: "" };
    expect(channels.stopCall(ref)).toEqual({
      method: "POST",
      path: "/calendar/v3/channels/stop",
      body: '{"id":"ch","resourceId":"r"}',
    });
  });

  test("managed channels: a watch on the account's calendar with Junction's id and token, its answer read", () => {
    const input = {
      channelId: "mch_1",
      token: "tok",
      webhookUrl: "https://j.example/webhook/e/i",
      settings: {},
      now: 0,
    };
    const call = channels.create?.(input);
    expect(call?.method).toBe("POST");
    expect(call?.path).toBe("/calendar/v3/calendars/primary/events/watch");
    expect(JSON.parse(call?.body ?? "{}")).toMatchObject({
      id: "mch_1",
      type: "web_hook",
      address: "https://j.example/webhook/e/i",
      token: "tok",
      params: { ttl: "604800" },
    });
    const answer = bytes({ id: "mch_1", resourceId: "r1", resourceUri: "https://u/primary", expiration: "604800000" });
    expect(channels.readCreated?.(input, answer)).toEqual({
      channelId: "mch_1",
      resourceId: "r1",
      resourceUri: "https://u/primary",
      expirationMs: 604_800_000,
      token: "tok",
    });
    expect(channels.readCreated?.(input, bytes({ id: "mch_1" }))).toBeNull();
    expect(channels.renew).toBe("recreate");
  });
});
