import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type FakeUpstream, startFakeUpstream } from "../fake-upstream/index.ts";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import {
  addConnection,
  bodies,
  type CustomerReceiver,
  eventsUri,
  googHeaders,
  notify,
  providerHeaders,
  setupCalendar,
  startCustomerReceiver,
} from "./notifications-kit.ts";

// spec: Webhook-to-connection matching, rules 1–4. A fresh Junction per test keeps the rules apart.
let j: TestJunction;
let rx: CustomerReceiver;

beforeEach(async () => {
  j = await startTestJunction();
  rx = startCustomerReceiver();
  await setupCalendar(j, [rx.url]);
});
afterEach(async () => {
  await rx.stop();
  await j.close();
});

/** Sends one notification and returns the forwarded messages it produced, sorted by connection. */
async function forwardsOf(headers: Record<string, string>, expected: number, key = "cal") {
  const before = rx.received.length;
  const res = await notify(j, headers, { key });
  expect(res.status).toBe(200);
  const got = (await rx.waitFor(before + expected)).slice(before, before + expected);
  // A later notification gets through too, and the delivery log holds exactly `expected` messages
  // for this one: no extra message is on its way.
  const marker = `done-${before}`;
  await notify(j, googHeaders("https://example.invalid/none", { channelId: marker }), { key: "cal" });
  await rx.waitFor(before + expected + 1);
  const log = await j.api("GET", "/webhook-messages?limit=500");
  const mine = log.body.data.filter((m: { notification_id: string }) => m.notification_id === res.body.data.id);
  expect(mine).toHaveLength(expected);
  return bodies(got).sort((a, b) => (a.connectionId ?? "").localeCompare(b.connectionId ?? ""));
}

describe("rule 1: the exact watch URI", () => {
  test("matches the connection listing the URI, and wins over the primary-calendar lookup", async () => {
    const uri = eventsUri("shared@example.com");
    await addConnection(j, "by-uri", { metadata: { calendarWatchResourceUris: [uri] } });
    await addConnection(j, "by-hash", { hashOf: "shared@example.com" });
    await addConnection(j, "by-email", { metadata: { emailAddress: "shared@example.com" } });
    const forwarded = await forwardsOf(googHeaders(uri), 1);
    expect(forwarded.map((f) => f.connectionId)).toEqual(["by-uri"]);
  });

  test("needs the same encoding, path and query: another spelling falls through to rule 2", async () => {
    const stored = eventsUri("carol@example.com"); // carol%40example.com, ?alt=json
    await addConnection(j, "carol-uri", { metadata: { calendarWatchResourceUris: [stored] } });
    await addConnection(j, "carol-hash", { hashOf: "carol@example.com" });
    const raw = "https://www.googleapis.com/calendar/v3/calendars/carol@example.com/events?alt=json";
    expect((await forwardsOf(googHeaders(raw), 1)).map((f) => f.connectionId)).toEqual(["carol-hash"]);
    const otherQuery = eventsUri("carol@example.com", "?alt=json&x=1");
    expect((await forwardsOf(googHeaders(otherQuery), 1)).map((f) => f.connectionId)).toEqual(["carol-hash"]);
    expect((await forwardsOf(googHeaders(stored), 1)).map((f) => f.connectionId)).toEqual(["carol-uri"]);
  });

  test("rule 3: every connection listing the URI gets its own message, with its own webhook-id", async () => {
    const uri = eventsUri("team@example.com");
    for (const id of ["t1", "t2", "t3"]) await addConnection(j, id, { metadata: { calendarWatchResourceUris: [uri] } });
    const before = rx.received.length;
    const forwarded = await forwardsOf(googHeaders(uri), 3);
    expect(forwarded.map((f) => f.connectionId)).toEqual(["t1", "t2", "t3"]);
    const ids = rx.received.slice(before, before + 3).map((d) => d.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(3);
    for (const f of forwarded) expect(f.payload["x-goog-resource-uri"]).toBe(uri);
  });

  test("is scoped to the integration of the webhook URL", async () => {
    const uri = eventsUri("scoped@example.com");
    await j.api("POST", "/integrations", { unique_key: "other", provider: "google-calendar" });
    await addConnection(j, "elsewhere", { key: "other", metadata: { calendarWatchResourceUris: [uri] } });
    const forwarded = await forwardsOf(googHeaders(uri), 1);
    expect(forwarded[0]?.connectionId).toBeUndefined();
    const there = await forwardsOf(googHeaders(uri), 1, "other");
    expect(there[0]).toMatchObject({ connectionId: "elsewhere", providerConfigKey: "other" });
  });
});

describe("rule 2: the primary calendar, tiered", () => {
  test("emailAddressHash first: a hash match decides even when metadata emails match too", async () => {
    await addConnection(j, "hash", { hashOf: "dana@example.com" });
    await addConnection(j, "meta", { metadata: { emailAddress: "dana@example.com" } });
    const forwarded = await forwardsOf(googHeaders(eventsUri("dana@example.com")), 1);
    expect(forwarded.map((f) => f.connectionId)).toEqual(["hash"]);
  });

  test("then metadata.emailAddress over metadata.email", async () => {
    await addConnection(j, "address", { metadata: { emailAddress: "erin@example.com" } });
    await addConnection(j, "email", { metadata: { email: "erin@example.com" } });
    expect((await forwardsOf(googHeaders(eventsUri("erin@example.com")), 1)).map((f) => f.connectionId)).toEqual([
      "address",
    ]);
  });

  test("then metadata.email", async () => {
    await addConnection(j, "email-only", { metadata: { email: "fay@example.com" } });
    expect((await forwardsOf(googHeaders(eventsUri("fay@example.com")), 1)).map((f) => f.connectionId)).toEqual([
      "email-only",
    ]);
  });

  test("fans out to every connection matching in the deciding tier", async () => {
    await addConnection(j, "g1", { metadata: { emailAddress: "gus@example.com" } });
    await addConnection(j, "g2", { metadata: { emailAddress: "  GUS@Example.com " } });
    await addConnection(j, "g3", { metadata: { email: "gus@example.com" } });
    expect((await forwardsOf(googHeaders(eventsUri("gus@example.com")), 2)).map((f) => f.connectionId)).toEqual([
      "g1",
      "g2",
    ]);
  });

  test("decodes the calendar id and compares emails trimmed and case-insensitively", async () => {
    await addConnection(j, "hal", { hashOf: "Hal@Example.com" });
    const uri = "https://www.googleapis.com/calendar/v3/calendars/HAL%40example.COM/events";
    expect((await forwardsOf(googHeaders(uri), 1)).map((f) => f.connectionId)).toEqual(["hal"]);
  });
});

describe("connections imported from Nango keep matching", () => {
  /** Imports a connection as a Nango export would carry it, through the public API. */
  async function importFromNango(id: string, body: Record<string, unknown>) {
    const res = await j.api("POST", "/connections", {
      provider_config_key: "cal",
      connection_id: id,
      credentials: { type: "OAUTH2", access_token: `access-${id}`, refresh_token: `refresh-${id}` },
      ...body,
    });
    expect(res.status).toBe(200);
  }
  const nangoHash = (email: string) =>
    new Bun.CryptoHasher("sha256").update(`nango.emailAddressHash.v1:${email.trim().toLowerCase()}`).digest("hex");

  test("metadata.googleCalendarWatchResourceUris is rule 1, like calendarWatchResourceUris", async () => {
    const uri = eventsUri("ivy@example.com");
    await importFromNango("nango-uri", { metadata: { googleCalendarWatchResourceUris: [uri] } });
    await addConnection(j, "junction-uri", { metadata: { calendarWatchResourceUris: [uri] } });
    await addConnection(j, "by-hash", { hashOf: "ivy@example.com" });
    const forwarded = await forwardsOf(googHeaders(uri), 2);
    expect(forwarded.map((f) => f.connectionId)).toEqual(["junction-uri", "nango-uri"]);
  });

  test("an emailAddressHash of Nango's formula is rule 2's first tier, like Junction's", async () => {
    await importFromNango("nango-hash", { connection_config: { emailAddressHash: nangoHash(" Jo@Example.com") } });
    await addConnection(j, "junction-hash", { hashOf: "jo@example.com" });
    await addConnection(j, "meta", { metadata: { emailAddress: "jo@example.com" } });
    const forwarded = await forwardsOf(googHeaders(eventsUri("JO@example.com")), 2);
    expect(forwarded.map((f) => f.connectionId)).toEqual(["junction-hash", "nango-hash"]);
  });
});

describe("rule 4: no match", () => {
  test("still forwards once, without connectionId", async () => {
    await addConnection(j, "someone", { metadata: { emailAddress: "someone@example.com" } });
    const forwarded = await forwardsOf(googHeaders(eventsUri("nobody@example.com")), 1);
    expect(forwarded).toHaveLength(1);
    expect("connectionId" in (forwarded[0] ?? {})).toBe(false);
    const log = await j.api("GET", "/webhook-messages?unmatched=true");
    expect(log.body.data.length).toBeGreaterThanOrEqual(1);
    expect(log.body.data.every((m: { connection_id: string | null }) => m.connection_id === null)).toBe(true);
  });
});

describe("notifications from the fake upstream", () => {
  let fake: FakeUpstream | undefined;
  afterAll(async () => {
    await fake?.stop();
  });

  for (const style of ["goog", "provider"] as const) {
    test(`real ${style} notifications of a watch are matched and forwarded (sync, then exists)`, async () => {
      fake = await startFakeUpstream({ notificationHeaderStyle: style });
      try {
        fake.addUser({ email: "ivy@example.com" });
        const { accessToken } = fake.issueTokens({ email: "ivy@example.com" });
        const integration = await j.api("GET", "/integrations/cal?include=webhook");
        const address = integration.body.data.webhook_url as string;
        const watch = await fetch(`${fake.url}/calendar/v3/calendars/ivy%40example.com/events/watch`, {
          method: "POST",
          headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
          body: JSON.stringify({ id: `watch-${style}`, type: "web_hook", address }),
        });
        expect(watch.status).toBe(200);
        const { resourceUri } = (await watch.json()) as { resourceUri: string };
        await addConnection(j, "ivy", { metadata: { calendarWatchResourceUris: [resourceUri] } });
        // The sync notification may arrive before the connection exists: it is then unmatched.
        await rx.waitFor(1);
        const before = rx.received.length;
        fake.createEvent("ivy@example.com", {
          summary: "standup",
          start: { dateTime: "2026-01-01T10:00:00Z" },
          end: { dateTime: "2026-01-01T10:30:00Z" },
        });
        const [exists] = bodies((await rx.waitFor(before + 1)).slice(before));
        expect(exists?.connectionId).toBe("ivy");
        const prefix = style === "goog" ? "x-goog" : "x-provider";
        expect(exists?.payload[`${prefix}-resource-state`]).toBe("exists");
        expect(exists?.payload[`${prefix}-message-number`]).toBe("2");
        expect(exists?.payload[`${prefix}-resource-uri`]).toBe(resourceUri);
        const [sync] = bodies(rx.received.slice(0, 1));
        expect(sync?.payload[`${prefix}-resource-state`]).toBe("sync");
        if (style === "provider") {
          const names = Object.keys(exists?.payload ?? {}).filter((n) => n.startsWith("x-"));
          expect(names.sort()).toEqual([
            "x-provider-channel-id",
            "x-provider-message-number",
            "x-provider-resource-id",
            "x-provider-resource-state",
            "x-provider-resource-uri",
          ]);
        }
      } finally {
        await fake.stop();
        fake = undefined;
      }
    });
  }

  test("x-provider-* headers match by the primary calendar too", async () => {
    await addConnection(j, "jo", { metadata: { email: "jo@example.com" } });
    expect((await forwardsOf(providerHeaders(eventsUri("jo@example.com")), 1)).map((f) => f.connectionId)).toEqual([
      "jo",
    ]);
  });
});
