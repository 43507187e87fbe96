import { afterEach, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { ManualClock } from "@junction/platform";
import { verifyStandard } from "@junction/webhook-service";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import {
  addConnection,
  eventsUri,
  googHeaders,
  notify,
  setupCalendar,
  startCustomerReceiver,
  waitForMessages,
  waitForStatus,
} from "./notifications-kit.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const URI = eventsUri("lee@example.com");

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An embedded Junction on a manual clock, without jitter so that retry times are exact. */
async function start(env: Record<string, string> = {}) {
  const clock = new ManualClock();
  const j = await startTestJunction({ clock, env: { JUNCTION_WEBHOOK_RETRY_JITTER: "0", ...env } });
  const rx = startCustomerReceiver();
  cleanups.push(
    () => j.close(),
    () => rx.stop(),
  );
  await setupCalendar(j, [rx.url]);
  await addConnection(j, "lee", { metadata: { calendarWatchResourceUris: [URI] } });
  return { j, rx, clock };
}

/** Sends a notification and returns its one message once its first round is recorded. */
async function firstMessage(j: TestJunction, channelId: string): Promise<any> {
  const res = await notify(j, googHeaders(URI, { channelId }));
  expect(res.status).toBe(200);
  return waitFor(`the message of ${channelId} after its first round`, async () => {
    const log = await j.api("GET", "/webhook-messages?limit=500");
    const m = log.body.data.find((x: any) => x.notification_id === res.body.data.id);
    return m && m.attempt_count >= 1 ? m : null;
  });
}

/** Waits until message `id` has made `n` rounds, and returns it with its attempts. */
async function afterRounds(j: TestJunction, id: string, n: number): Promise<any> {
  return waitFor(`message ${id} to have ${n} attempts`, async () => {
    const m = (await j.api("GET", `/webhook-messages/${id}`)).body.data;
    return m.attempt_count >= n ? m : null;
  });
}

describe("signatures", () => {
  test("Standard Webhooks and X-Nango-Hmac-Sha256 verify, with both secrets during a rotation", async () => {
    const { j, rx, clock } = await start();
    const rotate = async () => {
      const res = await j.api("POST", "/webhook-settings/signing-secret", { grace_period_seconds: 3600 });
      expect(res.status).toBe(201);
      return res.body.data.signing_secret as string;
    };
    const s1 = await rotate();
    const s2 = await rotate();
    const nowSeconds = () => Math.floor(clock.now() / 1000);

    await notify(j, googHeaders(URI, { channelId: "sig-1" }));
    const [during] = await rx.waitFor(1);
    expect(during?.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(verifyStandard(s2, during?.headers ?? {}, during?.body ?? "", 300, nowSeconds())).toEqual({ valid: true });
    expect(verifyStandard(s1, during?.headers ?? {}, during?.body ?? "", 300, nowSeconds())).toEqual({ valid: true });
    expect(during?.headers["x-nango-hmac-sha256"]).toBe(
      createHmac("sha256", s2)
        .update(during?.body ?? "")
        .digest("hex"),
    );
    expect(during?.headers["content-type"]).toBe("application/json");
    // Never Nango's legacy unkeyed sha256(secret + body).
    expect(during?.headers["x-nango-signature"]).toBeUndefined();
    expect(during?.headers["webhook-timestamp"]).toBe(String(nowSeconds()));

    await clock.advance(HOUR + SECOND);
    await notify(j, googHeaders(URI, { channelId: "sig-2" }));
    const after = (await rx.waitFor(2))[1];
    expect(after?.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
    expect(verifyStandard(s2, after?.headers ?? {}, after?.body ?? "", 300, nowSeconds())).toEqual({ valid: true });
    expect(verifyStandard(s1, after?.headers ?? {}, after?.body ?? "", 300, nowSeconds())).toEqual({
      valid: false,
      reason: "no_matching_signature",
    });
    // A tampered body does not verify.
    expect(verifyStandard(s2, after?.headers ?? {}, `${after?.body} `, 300, nowSeconds()).valid).toBe(false);

    const everything = [j.logLines.join("\n"), (await j.api("GET", "/webhook-messages?limit=500")).text];
    for (const text of everything) for (const secret of [s1, s2]) expect(text).not.toContain(secret);
  });

  test("the body is the documented stable JSON: sorted keys, no whitespace", async () => {
    const { j, rx } = await start();
    await notify(j, googHeaders(URI, { channelId: "body-1", number: 4 }));
    const [got] = await rx.waitFor(1);
    const parsed = JSON.parse(got?.body ?? "");
    expect(got?.body.startsWith('{"connectionId":"lee","from":"google-calendar","payload":{')).toBe(true);
    expect(got?.body.endsWith('},"providerConfigKey":"cal","type":"forward"}')).toBe(true);
    const keys = Object.keys(parsed.payload);
    expect(keys).toEqual([...keys].sort());
    const stable = (v: unknown): string =>
      v !== null && typeof v === "object"
        ? `{${Object.keys(v)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
            .join(",")}}`
        : JSON.stringify(v);
    expect(got?.body).toBe(stable(parsed));
  });
});

describe("retries", () => {
  test("follow the schedule (immediately, 5 s, 5 min, 30 min...) until the receiver recovers, with one webhook-id", async () => {
    const { j, rx, clock } = await start();
    rx.answer((n) => (n <= 3 ? { status: 500, body: "boom" } : { status: 204 }));
    const t0 = clock.now();
    const m = await firstMessage(j, "retry-1");
    expect(m.status).toBe("failed");
    expect(m.next_attempt_at).toBe(new Date(t0 + 5 * SECOND).toISOString());

    await clock.advance(5 * SECOND - 1);
    expect((await j.api("GET", `/webhook-messages/${m.id}`)).body.data.attempt_count).toBe(1);
    await clock.advance(1);
    expect((await afterRounds(j, m.id, 2)).next_attempt_at).toBe(new Date(t0 + 5 * SECOND + 5 * MINUTE).toISOString());
    await clock.advance(5 * MINUTE);
    expect((await afterRounds(j, m.id, 3)).next_attempt_at).toBe(new Date(t0 + 5 * SECOND + 35 * MINUTE).toISOString());
    await clock.advance(30 * MINUTE);
    const done = await waitForStatus(j, m.id, "succeeded");

    expect(done.attempts.map((a: any) => a.at)).toEqual(
      [t0, t0 + 5 * SECOND, t0 + 5 * SECOND + 5 * MINUTE, t0 + 5 * SECOND + 35 * MINUTE].map((t) =>
        new Date(t).toISOString(),
      ),
    );
    expect(done.attempts.map((a: any) => [a.number, a.status_code, a.error, a.response_snippet])).toEqual([
      [1, 500, "HTTP 500", "boom"],
      [2, 500, "HTTP 500", "boom"],
      [3, 500, "HTTP 500", "boom"],
      [4, 204, null, ""],
    ]);
    for (const a of done.attempts) {
      expect(a.url).toBe(rx.url);
      expect(a.endpoint_id).toMatch(/^ep_/);
      expect(a.latency_ms).toBeGreaterThanOrEqual(0);
    }
    expect(new Set(rx.received.map((d) => d.headers["webhook-id"]))).toEqual(new Set([m.id]));
    expect(rx.received.map((d) => Number(d.headers["webhook-timestamp"]))).toEqual(
      done.attempts.map((a: any) => Math.floor(Date.parse(a.at) / 1000)),
    );
  });

  test("a message failing every round is exhausted with its reason, then replayed with the same webhook-id", async () => {
    const { j, rx, clock } = await start();
    rx.answer({ status: 503, body: "down for maintenance" });
    const m = await firstMessage(j, "exhaust-1");
    const delays = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
    for (const [i, delay] of delays.entries()) {
      await clock.advance(delay);
      await afterRounds(j, m.id, i + 2);
    }
    const exhausted = await waitForStatus(j, m.id, "exhausted");
    expect(exhausted.attempt_count).toBe(8);
    expect(exhausted.next_attempt_at).toBeNull();
    expect(exhausted.last_error).toBe("8 attempts failed; last: HTTP 503");
    await clock.advance(48 * HOUR);
    expect(rx.received).toHaveLength(8);
    expect(j.logLines.some((l) => l.includes("webhook message exhausted") && l.includes(m.id))).toBe(true);

    rx.answer({ status: 200 });
    const replay = await j.api("POST", `/webhook-messages/${m.id}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body.data).toMatchObject({ id: m.id, status: "pending" });
    const replayed = await waitForStatus(j, m.id, "succeeded");
    expect(replayed.attempt_count).toBe(9);
    expect(rx.received[8]?.headers["webhook-id"]).toBe(m.id);
    expect(rx.received[8]?.body).toBe(rx.received[0]?.body);
  });

  test("a 429's Retry-After is honoured, and clamped to the configured maximum", async () => {
    const { j, rx } = await start({ JUNCTION_WEBHOOK_RETRY_AFTER_MAX: "10m" });
    rx.answer({ status: 429, headers: { "retry-after": "120" } });
    const first = await firstMessage(j, "ra-1");
    const done1 = Date.parse((await j.api("GET", `/webhook-messages/${first.id}`)).body.data.attempts[0].at);
    expect(Date.parse(first.next_attempt_at) - done1).toBe(120 * SECOND);

    rx.answer({ status: 429, headers: { "retry-after": "86400" } });
    const second = await firstMessage(j, "ra-2");
    const done2 = Date.parse((await j.api("GET", `/webhook-messages/${second.id}`)).body.data.attempts[0].at);
    expect(Date.parse(second.next_attempt_at) - done2).toBe(10 * MINUTE);

    // Shorter than the schedule's delay: the schedule's wins (never earlier than either).
    rx.answer({ status: 429, headers: { "retry-after": "1" } });
    const third = await firstMessage(j, "ra-3");
    const done3 = Date.parse((await j.api("GET", `/webhook-messages/${third.id}`)).body.data.attempts[0].at);
    expect(Date.parse(third.next_attempt_at) - done3).toBe(5 * SECOND);
  });

  test("the schedule is configurable; replay-failed replays every failed or exhausted message since a time", async () => {
    const { j, rx, clock } = await start({ JUNCTION_WEBHOOK_RETRY_SCHEDULE: "0s,1s" });
    rx.answer({ status: 500 });
    const old = await firstMessage(j, "rf-old");
    await clock.advance(SECOND);
    await waitForStatus(j, old.id, "exhausted");
    await clock.advance(HOUR);
    const cutoff = new Date(clock.now()).toISOString();
    await clock.advance(MINUTE);
    const recent = await firstMessage(j, "rf-recent");
    await clock.advance(SECOND);
    await waitForStatus(j, recent.id, "exhausted");
    const failing = await firstMessage(j, "rf-failing");
    expect(failing.status).toBe("failed");

    rx.answer({ status: 200 });
    const res = await j.api("POST", "/webhook-messages/replay-failed", { since: cutoff });
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({ replayed: 2 });
    await waitForStatus(j, recent.id, "succeeded");
    await waitForStatus(j, failing.id, "succeeded");
    expect((await j.api("GET", `/webhook-messages/${old.id}`)).body.data.status).toBe("exhausted");

    for (const bad of [{}, { since: "yesterday" }, { since: -1 }, { since: cutoff, extra: 1 }]) {
      expect((await j.api("POST", "/webhook-messages/replay-failed", bad)).status).toBe(400);
    }
  });
});

describe("the delivery log", () => {
  test("lists with filters and pages, shows one message with its attempts, and refuses bad input", async () => {
    const { j, rx } = await start({ JUNCTION_WEBHOOK_RETRY_SCHEDULE: "0s" });
    await j.api("POST", "/integrations", { unique_key: "cal2", provider: "google-calendar" });
    await addConnection(j, "max", { key: "cal2", metadata: { calendarWatchResourceUris: [URI] } });
    await notify(j, googHeaders(URI, { channelId: "log-1" }));
    await notify(j, googHeaders(URI, { channelId: "log-2" }), { key: "cal2" });
    await notify(j, googHeaders(eventsUri("nobody@example.com"), { channelId: "log-3" }));
    await waitForMessages(j, 3);
    await rx.waitFor(3);
    rx.answer({ status: 500 });
    await notify(j, googHeaders(URI, { channelId: "log-4" }));
    await waitForMessages(j, 1, "status=exhausted");

    // Newest first by id, which orders by creation to the millisecond: compare as sets, check the order.
    const listed = async (q: string) => (await j.api("GET", `/webhook-messages?${q}`)).body.data as any[];
    const ids = async (q: string) =>
      (await listed(q)).map((m) => m.body.match(/"x-goog-channel-id":"([^"]+)"/)[1]).sort();
    const all = await listed("");
    expect(all.map((m) => m.id)).toEqual(
      all
        .map((m) => m.id)
        .sort()
        .reverse(),
    );
    expect(await ids("")).toEqual(["log-1", "log-2", "log-3", "log-4"]);
    expect(await ids("provider_config_key=cal2")).toEqual(["log-2"]);
    expect(await ids("connection_id=lee")).toEqual(["log-1", "log-4"]);
    expect(await ids("unmatched=true")).toEqual(["log-3"]);
    expect(await ids("status=exhausted")).toEqual(["log-4"]);
    expect(await ids("status=succeeded&type=forward")).toEqual(["log-1", "log-2", "log-3"]);
    expect(await ids("type=auth")).toEqual([]);

    const page1 = await j.api("GET", "/webhook-messages?limit=3");
    expect(page1.body.data).toHaveLength(3);
    const page2 = await j.api("GET", `/webhook-messages?limit=3&cursor=${page1.body.next_cursor}`);
    expect(page2.body.data).toHaveLength(1);
    expect(page2.body.next_cursor).toBeNull();
    expect([...page1.body.data, ...page2.body.data].map((m: any) => m.id)).toEqual(all.map((m) => m.id));

    const exhaustedId = (await listed("status=exhausted"))[0].id;
    const one = (await j.api("GET", `/webhook-messages/${exhaustedId}`)).body.data;
    expect(one).toMatchObject({
      type: "forward",
      provider_config_key: "cal",
      connection_id: "lee",
      status: "exhausted",
    });
    expect(one.attempts).toHaveLength(1);
    expect(one.attempts[0]).toMatchObject({ number: 1, status_code: 500, error: "HTTP 500", url: rx.url });

    for (const q of ["status=lost", "limit=0", "limit=501", "unmatched=yes", "color=red", "cursor=abc"]) {
      expect((await j.api("GET", `/webhook-messages?${q}`)).status).toBe(400);
    }
    const unknown = await j.api("GET", "/webhook-messages/msg_00000000000000000000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("unknown_message");
    expect((await j.api("GET", "/webhook-messages/not-an-id")).status).toBe(400);
    expect((await j.api("POST", "/webhook-messages/msg_00000000000000000000000000/replay")).status).toBe(404);
    expect((await j.api("GET", "/webhook-messages", undefined, { authorization: "Bearer wrong" })).status).toBe(401);
  });
});
