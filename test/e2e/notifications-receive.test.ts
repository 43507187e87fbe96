import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
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

let j: TestJunction;
let rx: CustomerReceiver;
const ALICE_URI = eventsUri("alice@example.com");

beforeAll(async () => {
  j = await startTestJunction();
  rx = startCustomerReceiver();
  await setupCalendar(j, [rx.url]);
  await addConnection(j, "alice", { metadata: { calendarWatchResourceUris: [ALICE_URI] } });
});
afterAll(async () => {
  await rx.stop();
  await j.close();
});

/** Sends a good notification and waits for it: proves the queue still moves after bad input. */
async function stillFlowing(): Promise<void> {
  const before = rx.received.length;
  const res = await notify(j, googHeaders(ALICE_URI));
  expect(res.status).toBe(200);
  await rx.waitFor(before + 1);
}

describe("receiving notifications", () => {
  test("answers 200 with the recorded notification's id, then forwards it to the customer", async () => {
    const before = rx.received.length;
    const res = await notify(j, googHeaders(ALICE_URI, { channelId: "recv-1" }));
    expect(res.status).toBe(200);
    expect(res.body.data.id).toMatch(/^ntf_[0-9a-z]{26}$/);
    expect(res.body.data.duplicate).toBe(false);
    const [forwarded] = bodies((await rx.waitFor(before + 1)).slice(before));
    expect(forwarded?.connectionId).toBe("alice");
    const messages = await waitForMessages(j, 1, `connection_id=alice`);
    expect(messages.some((m) => m.notification_id === res.body.data.id)).toBe(true);
  });

  test("forwards the headers as received, lower-cased, names not renamed, and nothing else", async () => {
    const before = rx.received.length;
    const headers = { ...googHeaders(ALICE_URI, { channelId: "recv-case" }), "X-Custom-Thing": "Kept As Is" };
    expect((await notify(j, headers)).status).toBe(200);
    const [forwarded] = bodies((await rx.waitFor(before + 1)).slice(before));
    expect(forwarded).toMatchObject({ from: "google-calendar", providerConfigKey: "cal", type: "forward" });
    expect(Object.keys(forwarded ?? {}).sort()).toEqual([
      "connectionId",
      "from",
      "payload",
      "providerConfigKey",
      "type",
    ]);
    expect(forwarded?.payload).toMatchObject({
      "x-goog-channel-id": "recv-case",
      "x-goog-message-number": "1",
      "x-goog-resource-state": "exists",
      "x-goog-resource-uri": ALICE_URI,
      "x-custom-thing": "Kept As Is",
    });
    for (const name of Object.keys(forwarded?.payload ?? {})) expect(name).toBe(name.toLowerCase());
  });

  test("the spec's x-provider-* names work as the upstream's x-goog-* ones do", async () => {
    const before = rx.received.length;
    expect((await notify(j, providerHeaders(ALICE_URI, { channelId: "recv-provider" }))).status).toBe(200);
    const [forwarded] = bodies((await rx.waitFor(before + 1)).slice(before));
    expect(forwarded?.connectionId).toBe("alice");
    expect(forwarded?.payload["x-provider-resource-uri"]).toBe(ALICE_URI);
    expect(forwarded?.payload["x-provider-channel-id"]).toBe("recv-provider");
  });

  test("an unknown integration or environment gets 404 and nothing is recorded", async () => {
    const env = await environmentId(j);
    const unknownKey = await notify(j, googHeaders(ALICE_URI, { channelId: "recv-404a" }), { key: "nope" });
    expect(unknownKey.status).toBe(404);
    expect(unknownKey.body.error.code).toBe("unknown_webhook_url");
    const otherEnv = await notify(j, googHeaders(ALICE_URI, { channelId: "recv-404b" }), {
      env: env.replace(/.$/, (c) => (c === "0" ? "1" : "0")),
    });
    expect(otherEnv.status).toBe(404);
    await stillFlowing();
    const all = await j.api("GET", "/webhook-messages?limit=500");
    expect(all.text).not.toContain("recv-404a");
    expect(all.text).not.toContain("recv-404b");
  });

  test("ReceiveNotifications records or refuses each notification of a batch on its own", async () => {
    const env = await environmentId(j);
    const before = rx.received.length;
    const headersOf = (channelId: string) =>
      Object.fromEntries(Object.entries(googHeaders(ALICE_URI, { channelId })).map(([k, v]) => [k.toLowerCase(), v]));
    const { results } = await j.clients.webhook.receiveNotifications({
      requests: [
        { environmentId: env, providerConfigKey: "cal", headers: headersOf("batch-a") },
        { environmentId: env, providerConfigKey: "nope", headers: headersOf("batch-b") },
        { environmentId: env, providerConfigKey: "cal", headers: headersOf("batch-c") },
      ],
    });
    expect(results.map((r) => r.outcome.case)).toEqual(["response", "error", "response"]);
    expect(results[1]?.outcome.value).toMatchObject({ code: "unknown_webhook_url" });
    const forwarded = bodies((await rx.waitFor(before + 2)).slice(before));
    expect(forwarded.map((b) => b.payload["x-goog-channel-id"]).sort()).toEqual(["batch-a", "batch-c"]);
    const all = await j.api("GET", "/webhook-messages?limit=500");
    expect(all.text).not.toContain("batch-b");
  });

  test("notifications arriving together each get their own answer", async () => {
    const before = rx.received.length;
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        notify(j, googHeaders(ALICE_URI, { channelId: `together-${i}` }), i % 3 === 1 ? { key: "nope" } : {}),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 24 }, (_, i) => (i % 3 === 1 ? 404 : 200)));
    for (const [i, a] of answers.entries()) {
      if (i % 3 === 1) expect(a.body.error.code).toBe("unknown_webhook_url");
      else expect(a.body.data.id).toMatch(/^ntf_/);
    }
    const forwarded = bodies((await rx.waitFor(before + 16)).slice(before));
    expect(new Set(forwarded.map((b) => b.payload["x-goog-channel-id"])).size).toBe(16);
  });

  test("needs no secret key, and other methods get 405", async () => {
    const res = await fetch(`${j.url}/webhook/${await environmentId(j)}/cal`, { method: "GET" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  test("accepts any content type and an empty body", async () => {
    const before = rx.received.length;
    for (const [i, type] of ["text/plain", "application/json", "application/x-www-form-urlencoded"].entries()) {
      const headers = { ...googHeaders(ALICE_URI, { channelId: `recv-type-${i}` }), "content-type": type };
      expect((await notify(j, headers)).status).toBe(200);
    }
    await rx.waitFor(before + 3);
  });

  test("a body where none is expected is recorded and discarded; a large one is refused unrecorded", async () => {
    const before = rx.received.length;
    const small = await notify(j, googHeaders(ALICE_URI, { channelId: "recv-body" }), { body: '{"unexpected":true}' });
    expect(small.status).toBe(200);
    const [forwarded] = (await rx.waitFor(before + 1)).slice(before);
    expect(forwarded?.body).not.toContain("unexpected");
    const large = await notify(j, googHeaders(ALICE_URI, { channelId: "recv-huge-body" }), {
      body: "x".repeat(70_000),
    });
    expect(large.status).toBe(413);
    await stillFlowing();
    expect((await j.api("GET", "/webhook-messages?limit=500")).text).not.toContain("recv-huge-body");
  });

  test("a huge header set is refused with 431, unrecorded, and the queue keeps moving", async () => {
    const many: Record<string, string> = googHeaders(ALICE_URI, { channelId: "recv-many" });
    for (let i = 0; i < 150; i++) many[`x-extra-${i}`] = "v";
    expect((await notify(j, many)).status).toBe(431);
    const big = { ...googHeaders(ALICE_URI, { channelId: "recv-big" }), "x-big": "b".repeat(40_000) };
    expect((await notify(j, big)).status).toBe(431);
    await stillFlowing();
    const all = await j.api("GET", "/webhook-messages?limit=500");
    expect(all.text).not.toContain("recv-many");
    expect(all.text).not.toContain("recv-big");
  });

  test("credentials sent to the webhook URL are neither forwarded nor kept in the delivery log", async () => {
    const before = rx.received.length;
    const headers = {
      ...googHeaders(ALICE_URI, { channelId: "recv-creds" }),
      authorization: `Bearer ${TEST_SECRET_KEY}`,
      cookie: "session=s3cr3t-cookie",
    };
    expect((await notify(j, headers)).status).toBe(200);
    const [forwarded] = (await rx.waitFor(before + 1)).slice(before);
    expect(forwarded?.body).not.toContain(TEST_SECRET_KEY);
    expect(forwarded?.body).not.toContain("s3cr3t-cookie");
    const log = await j.api("GET", "/webhook-messages?limit=500");
    expect(log.text).not.toContain(TEST_SECRET_KEY);
    expect(log.text).not.toContain("s3cr3t-cookie");
    expect(j.logLines.join("\n")).not.toContain("s3cr3t-cookie");
  });
});

describe("bad input is recorded and forwarded unmatched, never blocking the queue", () => {
  const cases: Array<[string, Record<string, string>]> = [
    ["a missing resource URI", { "X-Goog-Channel-ID": "bad-missing", "X-Goog-Message-Number": "1" }],
    [
      "a URI without /calendars/",
      googHeaders("https://www.googleapis.com/calendar/v3/users/me/calendarList", { channelId: "bad-nocal" }),
    ],
    [
      "malformed percent-encoding",
      googHeaders("https://www.googleapis.com/calendar/v3/calendars/%E0%A4%A/events", { channelId: "bad-pct" }),
    ],
    ["no channel id or message number", { "X-Goog-Resource-URI": eventsUri("nobody@example.com") }],
    ["a non-numeric message number", googHeaders(eventsUri("nobody@example.com"), { channelId: "bad-num" })],
  ];
  for (const [what, headers] of cases) {
    test(`${what}: 200, forwarded without connectionId`, async () => {
      const h = what === "a non-numeric message number" ? { ...headers, "X-Goog-Message-Number": "twelve" } : headers;
      const before = rx.received.length;
      expect((await notify(j, h)).status).toBe(200);
      const [forwarded] = bodies((await rx.waitFor(before + 1)).slice(before));
      expect(forwarded?.type).toBe("forward");
      expect(forwarded?.connectionId).toBeUndefined();
      expect("connectionId" in (forwarded ?? {})).toBe(false);
      await stillFlowing();
    });
  }

  test("a URI without /calendars/ or with malformed encoding still matches by the exact URI (rule 1)", async () => {
    const odd = "https://www.googleapis.com/calendar/v3/calendars/%E0%A4%A/events?x=%zz";
    await addConnection(j, "odd", { metadata: { calendarWatchResourceUris: [odd] } });
    const before = rx.received.length;
    expect((await notify(j, googHeaders(odd, { channelId: "bad-odd" }))).status).toBe(200);
    const [forwarded] = bodies((await rx.waitFor(before + 1)).slice(before));
    expect(forwarded?.connectionId).toBe("odd");
  });
});

describe("forwarding switched off", () => {
  test("an integration with forward_webhooks false records and matches but sends nothing", async () => {
    await j.api("POST", "/integrations", { unique_key: "quiet", provider: "google-calendar" });
    const off = await j.api("PATCH", "/integrations/quiet", { forward_webhooks: false });
    expect(off.status).toBe(200);
    expect((await notify(j, googHeaders(ALICE_URI, { channelId: "quiet-1" }), { key: "quiet" })).status).toBe(200);
    await stillFlowing();
    await waitForMessages(j, 1, "provider_config_key=cal");
    const quiet = await j.api("GET", "/webhook-messages?provider_config_key=quiet");
    expect(quiet.body.data).toEqual([]);
    expect(j.logLines.some((l) => l.includes("forwarding is off") && l.includes("quiet"))).toBe(true);
  });
});
