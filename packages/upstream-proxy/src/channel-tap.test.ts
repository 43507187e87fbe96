import { describe, expect, test } from "bun:test";
import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import { providerAdapter } from "@junction/providers";
import { CHANNEL_BODY_LIMIT, channelCallOf, readBounded, teeBounded } from "./channel-tap.ts";

const streamOf = (...chunks: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });

const channelsOf = (provider: string) => providerAdapter(provider)?.channels;

describe("channel calls", () => {
  test("recognises watch and stop on a provider with channels", () => {
    const calendar = channelsOf("google-calendar");
    expect(channelCallOf("POST", "/calendar/v3/calendars/a%40b.c/events/watch", calendar)).toBe(ChannelCall.WATCH);
    expect(channelCallOf("POST", "/calendar/v3/channels/stop", calendar)).toBe(ChannelCall.STOP);
    expect(channelCallOf("GET", "/calendar/v3/calendars/a/events/watch", calendar)).toBeUndefined();
    expect(channelCallOf("POST", "/calendar/v3/calendars/a/events", calendar)).toBeUndefined();
    expect(channelCallOf("POST", "/calendar/v3/channels/stop", undefined)).toBeUndefined();
  });

  test("asks only the integration's provider: another provider's channel call is plain traffic", () => {
    const mail = channelsOf("google-mail");
    expect(channelCallOf("POST", "/gmail/v1/users/me/watch", mail)).toBe(ChannelCall.WATCH);
    expect(channelCallOf("POST", "/calendar/v3/channels/stop", mail)).toBeUndefined();
    expect(channelCallOf("POST", "/gmail/v1/users/me/watch", channelsOf("google-calendar"))).toBeUndefined();
  });

  test("a renewal in place is tapped, as are creation and deletion", () => {
    const outlook = channelsOf("microsoft-outlook-calendar");
    expect(channelCallOf("POST", "/v1.0/subscriptions", outlook)).toBe(ChannelCall.WATCH);
    expect(channelCallOf("DELETE", "/v1.0/subscriptions/sub-1", outlook)).toBe(ChannelCall.STOP);
    expect(channelCallOf("PATCH", "/v1.0/subscriptions/sub-1", outlook)).toBe(ChannelCall.RENEW);
    expect(channelCallOf("GET", "/v1.0/subscriptions/sub-1", outlook)).toBeUndefined();
  });

  test("the tee passes every byte on and keeps a copy of a small body", async () => {
    const [pass, copy] = teeBounded(streamOf(new TextEncoder().encode('{"id":'), new TextEncoder().encode('"c1"}')));
    expect(await new Response(pass).text()).toBe('{"id":"c1"}');
    expect(new TextDecoder().decode(await copy)).toBe('{"id":"c1"}');
  });

  test("a body over the limit passes on whole; the copy is given up (empty)", async () => {
    const big = new Uint8Array(CHANNEL_BODY_LIMIT + 10).fill(7);
    const [pass, copy] = teeBounded(streamOf(big.subarray(0, 40_000), big.subarray(40_000)));
    expect((await new Response(pass).arrayBuffer()).byteLength).toBe(big.byteLength);
    expect((await copy).byteLength).toBe(0);
  });

  test("a failing stream gives an empty copy, never an error", async () => {
    const failing = new ReadableStream<Uint8Array>({
      pull(c) {
        c.error(new Error("reset"));
      },
    });
    expect((await readBounded(failing)).byteLength).toBe(0);
  });
});
