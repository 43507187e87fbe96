import { describe, expect, test } from "bun:test";
import type { InboundNotification, NotificationReading } from "../adapter.ts";
import { googleCalendar } from "./adapter.ts";

const read = (headers: Record<string, string>, extra: Partial<InboundNotification> = {}): NotificationReading => {
  const reader = googleCalendar.notifications?.read;
  if (!reader) throw new Error("the calendar adapter reads no notifications");
  const context = { settings: {}, now: 0, fetch: () => Promise.reject(new Error("no fetch")) };
  const reading = reader({ headers, body: new Uint8Array(), query: "", contentType: "", ...extra }, context);
  if (reading instanceof Promise) throw new Error("the calendar adapter reads synchronously");
  return reading;
};

const GOOGLE = {
  "x-goog-channel-id": " ch-1 ",
  "x-goog-message-number": "42",
  "x-goog-resource-uri": "https://www.googleapis.com/calendar/v3/calendars/a%40b.com/events?alt=json ",
  "x-goog-resource-id": "res-1",
  "x-goog-resource-state": "exists",
  "x-goog-channel-token": "tok",
};

describe("google-calendar notifications.read", () => {
  test("reads one notification from the x-goog-* headers: ids trimmed, the resource URI as sent", () => {
    expect(read(GOOGLE)).toEqual({
      kind: "notifications",
      items: [
        {
          channelId: "ch-1",
          messageNumber: 42,
          resourceUri: "https://www.googleapis.com/calendar/v3/calendars/a%40b.com/events?alt=json ",
          resourceId: "res-1",
          state: "exists",
          token: "tok",
        },
      ],
    });
  });

  test("falls back to the spec's x-provider-* names; the upstream's names come first", () => {
    const reading = read({
      "x-provider-channel-id": "spec-ch",
      "x-provider-message-number": "7",
      "x-provider-resource-uri": "spec-uri",
      "x-provider-resource-id": "spec-res",
      "x-provider-resource-state": "sync",
      "x-provider-channel-token": "spec-tok",
      "x-goog-resource-uri": "goog-uri",
    });
    expect(reading).toEqual({
      kind: "notifications",
      items: [
        {
          channelId: "spec-ch",
          messageNumber: 7,
          resourceUri: "goog-uri",
          resourceId: "spec-res",
          state: "sync",
          token: "spec-tok",
        },
      ],
    });
  });

  test("absent or blank headers read as none; a message number that is not a plain integer is null", () => {
    for (const raw of ["-1", "1.5", "x", "1234567890123456"]) {
      const reading = read({ "x-goog-message-number": raw, "x-goog-channel-id": "  " });
      expect(reading).toEqual({
        kind: "notifications",
        items: [{ channelId: undefined, messageNumber: null, resourceUri: "", resourceId: "", state: "", token: "" }],
      });
    }
  });

  test("never answers a handshake: a validationToken query and a body are not read", () => {
    const reading = read(GOOGLE, {
      query: "validationToken=v",
      body: new TextEncoder().encode("{}"),
      contentType: "application/json",
    });
    expect(reading.kind).toBe("notifications");
  });
});
