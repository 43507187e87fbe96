import { describe, expect, test } from "bun:test";
import { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import { microsoftOutlookCalendar } from "./adapter.ts";

const channels = microsoftOutlookCalendar.channels;
if (!channels?.create || !channels.readCreated || typeof channels.renew !== "function") {
  throw new Error("the outlook adapter manages its subscriptions");
}
const { create, readCreated, renew } = channels;
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const NONE = new Uint8Array(0);
const at = (path: string) => ({ path, connectionId: "conn-1" });
const NOW = Date.parse("2026-11-25T12:00:00Z");
const creation = {
  channelId: "ours",
  token: "state-1",
  webhookUrl: "https://j.example/webhook/e/o",
  settings: {},
  now: NOW,
};
const ref = {
  id: "sub/1",
  resourceId: "",
  resourceUri: "/me/events",
  connectionId: "conn-1",
  expirationMs: 0,
  token: "state-1",
};

describe("the outlook adapter's subscription calls (Graph subscriptions API)", () => {
  test("recognises create, renew and delete by method and path, /v1.0 and /beta", () => {
    expect(channels.callOf("POST", "/v1.0/subscriptions")).toBe(ChannelCall.WATCH);
    expect(channels.callOf("POST", "/beta/subscriptions/")).toBe(ChannelCall.WATCH);
    expect(channels.callOf("PATCH", "/v1.0/subscriptions/abc")).toBe(ChannelCall.RENEW);
    expect(channels.callOf("DELETE", "/beta/subscriptions/abc?x=1")).toBe(ChannelCall.STOP);
    expect(channels.callOf("GET", "/v1.0/subscriptions/abc")).toBeUndefined();
    expect(channels.callOf("POST", "/v1.0/subscriptions/abc")).toBeUndefined();
    expect(channels.callOf("DELETE", "/v1.0/subscriptions")).toBeUndefined();
    expect(channels.callOf("POST", "/v1.0/me/events")).toBeUndefined();
  });

  test("reads a creation from Graph's answer (its id) and the request's clientState", () => {
    const facts = channels.readCall(
      ChannelCall.WATCH,
      bytes({
        changeType: "created",
        resource: "/me/events",
        clientState: "cs",
        expirationDateTime: "2026-11-26T00:00:00Z",
      }),
      bytes({ id: "graph-sub", resource: "/me/events", expirationDateTime: "2026-11-27T00:00:00Z" }),
      at("/v1.0/subscriptions"),
    );
    expect(facts).toEqual({
      channelId: "graph-sub",
      resourceId: "",
      resourceUri: "/me/events",
      expirationMs: Date.parse("2026-11-27T00:00:00Z"),
      token: "cs",
    });
    expect(
      channels.readCall(
        ChannelCall.WATCH,
        bytes({ clientState: "cs" }),
        bytes({ error: {} }),
        at("/v1.0/subscriptions"),
      ),
    ).toBeNull();
  });

  test("reads a renewal's and a deletion's id from the path", () => {
    const renewal = channels.readCall(
      ChannelCall.RENEW,
      bytes({ expirationDateTime: "2026-11-28T00:00:00Z" }),
      NONE,
      at("/v1.0/subscriptions/sub%2F1"),
    );
    expect(renewal).toEqual({
      channelId: "sub/1",
      resourceId: "",
      resourceUri: "",
      expirationMs: Date.parse("2026-11-28T00:00:00Z"),
      token: "",
    });
    const stop = channels.readCall(ChannelCall.STOP, NONE, NONE, at("/beta/subscriptions/abc"));
    expect(stop).toEqual({ channelId: "abc", resourceId: "", resourceUri: "", expirationMs: 0, token: "" });
    expect(channels.readCall(ChannelCall.STOP, NONE, NONE, at("/v1.0/subscriptions/%E0%A4%A"))).toBeNull();
  });

  test("stops with DELETE, the id encoded", () => {
    expect(channels.stopCall(ref)).toEqual({ method: "DELETE", path: "/v1.0/subscriptions/sub%2F1" });
  });

  test("lifetime: 10,080 minutes for Outlook events, renewed a day ahead", () => {
    expect(channels.maxLifetimeMs).toBe(10_080 * 60_000);
    expect(channels.renewMarginMs).toBeLessThan(channels.maxLifetimeMs);
  });

  test("managed: creates a subscription on /me/events with the webhook URL and the token as clientState", () => {
    const call = create(creation);
    expect(call.method).toBe("POST");
    expect(call.path).toBe("/v1.0/subscriptions");
    const body = JSON.parse(call.body ?? "{}");
    expect(body).toEqual({
      changeType: "created,updated,deleted",
      notificationUrl: creation.webhookUrl,
      lifecycleNotificationUrl: creation.webhookUrl,
      resource: "/me/events",
      expirationDateTime: expect.any(String),
      clientState: "state-1",
    });
    const expiry = Date.parse(body.expirationDateTime);
    expect(expiry).toBeGreaterThan(NOW + channels.maxLifetimeMs - 10 * 60_000);
    expect(expiry).toBeLessThan(NOW + channels.maxLifetimeMs);
  });

  test("managed: the created channel's id is Graph's; an answer without an id names none", () => {
    const answer = bytes({ id: "graph-sub", resource: "/me/events", expirationDateTime: "2026-12-02T11:55:00Z" });
    expect(readCreated(creation, answer)).toEqual({
      channelId: "graph-sub",
      resourceId: "",
      resourceUri: "/me/events",
      expirationMs: Date.parse("2026-12-02T11:55:00Z"),
      token: "state-1",
    });
    const echoed = bytes({ id: "graph-sub", clientState: "kept", expirationDateTime: "2026-12-02T11:55:00Z" });
    expect(readCreated(creation, echoed)?.token).toBe("kept");
    expect(readCreated(creation, bytes({ error: { code: "ValidationError" } }))).toBeNull();
    expect(readCreated(creation, bytes("x"))).toBeNull();
  });

  test("managed: renews in place with PATCH of the expiration only", () => {
    const call = renew(ref, { ...creation, now: NOW + 1000 });
    expect(call.method).toBe("PATCH");
    expect(call.path).toBe("/v1.0/subscriptions/sub%2F1");
    const body = JSON.parse(call.body ?? "{}");
    expect(Object.keys(body)).toEqual(["expirationDateTime"]);
    expect(Date.parse(body.expirationDateTime)).toBeLessThan(NOW + 1000 + channels.maxLifetimeMs);
  });
});
