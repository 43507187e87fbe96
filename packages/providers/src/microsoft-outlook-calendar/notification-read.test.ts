import { describe, expect, test } from "bun:test";
import type { InboundNotification, NotificationReading } from "../adapter.ts";
import { microsoftOutlookCalendar } from "./adapter.ts";
import { MAX_BATCH_ITEMS } from "./notification-read.ts";

const read = (extra: Partial<InboundNotification>): NotificationReading => {
  const reader = microsoftOutlookCalendar.notifications?.read;
  if (!reader) throw new Error("the outlook adapter reads notifications");
  const context = { settings: {}, now: 0, fetch: () => Promise.reject(new Error("no fetch")) };
  const reading = reader({ headers: {}, body: new Uint8Array(), query: "", contentType: "", ...extra }, context);
  if (reading instanceof Promise) throw new Error("the outlook adapter reads synchronously");
  return reading;
};
const json = (value: unknown) => ({
  body: new TextEncoder().encode(JSON.stringify(value)),
  contentType: "application/json",
});

// https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks (example notification).
const CHANGE = {
  subscriptionId: "sub-1",
  subscriptionExpirationDateTime: "2026-11-30T10:00:00.0000000Z",
  changeType: "updated",
  resource: "Users/u-1/Events/ev-1",
  resourceData: {
    "@odata.type": "#Microsoft.Graph.Event",
    "@odata.id": "Users/u-1/Events/ev-1",
    "@odata.etag": 'W/"1"',
    id: "ev-1",
  },
  clientState: "secret-state",
  tenantId: "t-1",
};

describe("microsoft-outlook-calendar notifications.read", () => {
  test("answers Graph's validation request with the decoded token as text/plain, recording nothing", () => {
    const reading = read({ query: "validationToken=Validation%3A+Testing%20client%20%26%20more" });
    expect(reading).toEqual({
      kind: "handshake",
      status: 200,
      contentType: "text/plain",
      body: new TextEncoder().encode("Validation: Testing client & more"),
    });
  });

  test("refuses an empty validation token and one over 1024 bytes", () => {
    expect(read({ query: "validationToken=" })).toMatchObject({ kind: "refused", status: 400 });
    expect(read({ query: `validationToken=${"a".repeat(1024)}` }).kind).toBe("handshake");
    expect(read({ query: `validationToken=${"a".repeat(1025)}` })).toMatchObject({
      kind: "refused",
      status: 400,
      code: "invalid_notification",
    });
  });

  test("reads each item of a batch: subscription as channel, clientState as token, never in the payload", () => {
    const reading = read(json({ value: [CHANGE] }));
    if (reading.kind !== "notifications") throw new Error(`expected notifications, got ${reading.kind}`);
    expect(reading.acceptStatus).toBe(202);
    const { clientState: _secret, ...payload } = CHANGE;
    expect(reading.items).toEqual([
      {
        channelId: "sub-1",
        messageNumber: null,
        resourceUri: "Users/u-1/Events/ev-1",
        resourceId: "ev-1",
        state: "updated",
        token: "secret-state",
        dedupeKey: expect.stringMatching(/^graph:[0-9a-f]{64}$/),
        match: { by: "channel" },
        payload,
      },
    ]);
    expect(JSON.stringify(reading.items[0]?.payload)).not.toContain("secret-state");
  });

  test("the dedupe key is stable for a redelivered item and differs when an identifying field does", () => {
    const keyOf = (item: Record<string, unknown>) => {
      const r = read(json({ value: [item] }));
      return r.kind === "notifications" ? r.items[0]?.dedupeKey : undefined;
    };
    const first = keyOf(CHANGE);
    expect(keyOf({ ...CHANGE, tenantId: "other", clientState: "x" })).toBe(first);
    expect(keyOf({ ...CHANGE, changeType: "deleted" })).not.toBe(first);
    expect(keyOf({ ...CHANGE, resourceData: { ...CHANGE.resourceData, "@odata.etag": 'W/"2"' } })).not.toBe(first);
    expect(keyOf({ ...CHANGE, subscriptionId: "sub-2" })).not.toBe(first);
  });

  test("reads lifecycle notifications (reauthorizationRequired, subscriptionRemoved, missed)", () => {
    // https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events
    const events = ["reauthorizationRequired", "subscriptionRemoved", "missed"] as const;
    const reading = read(
      json({
        value: events.map((lifecycleEvent) => ({
          subscriptionId: "sub-1",
          subscriptionExpirationDateTime: "2026-11-30T10:00:00Z",
          tenantId: "t-1",
          clientState: "secret-state",
          lifecycleEvent,
        })),
      }),
    );
    if (reading.kind !== "notifications") throw new Error("expected notifications");
    expect(reading.items.map((i) => [i.lifecycle, i.state, i.token])).toEqual(
      events.map((e) => [e, e, "secret-state"]),
    );
    expect(new Set(reading.items.map((i) => i.dedupeKey)).size).toBe(3);
    const unknown = read(json({ value: [{ subscriptionId: "s", lifecycleEvent: "somethingNew" }] }));
    expect(unknown.kind === "notifications" && unknown.items[0]?.lifecycle).toBeUndefined();
  });

  test("drops an item without a subscription id, keeping the rest of the batch", () => {
    const reading = read(json({ value: [{ ...CHANGE, subscriptionId: undefined }, "not an object", CHANGE] }));
    if (reading.kind !== "notifications") throw new Error("expected notifications");
    expect(reading.items.map((i) => i.channelId)).toEqual(["sub-1"]);
    expect(reading.dropped).toEqual(["item 0 has no subscriptionId", "item 1 is not an object"]);
    expect(read(json({ value: [CHANGE] }))).not.toHaveProperty("dropped");
  });

  test("refuses a body that is not JSON, has no value array, or holds too many items", () => {
    for (const body of [new TextEncoder().encode("not json"), new Uint8Array([0xff, 0xfe])]) {
      expect(read({ body })).toMatchObject({ kind: "refused", status: 400, code: "invalid_notification" });
    }
    for (const value of [{}, { value: {} }, { value: "x" }, [], null]) {
      expect(read(json(value))).toMatchObject({ kind: "refused", status: 400 });
    }
    const many = Array.from({ length: MAX_BATCH_ITEMS + 1 }, () => CHANGE);
    expect(read(json({ value: many }))).toMatchObject({ kind: "refused", status: 400 });
    expect(read(json({ value: many.slice(1) })).kind).toBe("notifications");
    expect(microsoftOutlookCalendar.notifications?.maxItems).toBe(MAX_BATCH_ITEMS);
  });
});
