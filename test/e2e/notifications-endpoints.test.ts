import { afterEach, describe, expect, test } from "bun:test";
import { ManualClock, newId } from "@junction/platform";
import { verifyStandard } from "@junction/webhook-service";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import {
  addConnection,
  bodies,
  enqueueAuthMessage,
  type CustomerReceiver,
  eventsUri,
  googHeaders,
  notify,
  setupCalendar,
  startCustomerReceiver,
  waitForMessages,
  waitForStatus,
} from "./notifications-kit.ts";

const DAY = 24 * 60 * 60 * 1000;
const URI = eventsUri("mia@example.com");

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(options: { env?: Record<string, string>; dataDir?: string; clock?: ManualClock } = {}) {
  const clock = options.clock ?? new ManualClock();
  const j = await startTestJunction({
    clock,
    dataDir: options.dataDir,
    env: { JUNCTION_WEBHOOK_RETRY_JITTER: "0", ...options.env },
  });
  cleanups.push(() => j.close({ keepData: Boolean(options.dataDir) }));
  return { j, clock };
}

function receiver(): CustomerReceiver {
  const rx = startCustomerReceiver();
  cleanups.push(() => rx.stop());
  return rx;
}

async function messageOf(j: TestJunction, notificationId: string): Promise<any> {
  return waitFor(`the message of ${notificationId}`, async () => {
    const log = await j.api("GET", "/webhook-messages?limit=500");
    const m = log.body.data.find((x: any) => x.notification_id === notificationId);
    return m && m.attempt_count >= 1 ? m : null;
  });
}

describe("several endpoints", () => {
  test("each gets every message; only the failing one is retried, and replay sends to both again", async () => {
    const { j, clock } = await start();
    const good = receiver();
    const bad = receiver();
    bad.answer({ status: 500 });
    await setupCalendar(j, [good.url, bad.url]);
    await addConnection(j, "mia", { metadata: { calendarWatchResourceUris: [URI] } });
    const res = await notify(j, googHeaders(URI, { channelId: "multi-1" }));
    const m = await messageOf(j, res.body.data.id);
    expect(m.status).toBe("failed");
    await good.waitFor(1);
    await bad.waitFor(1);

    bad.answer({ status: 200 });
    await clock.advance(5000);
    const done = await waitForStatus(j, m.id, "succeeded");
    expect(good.received).toHaveLength(1);
    expect(bad.received).toHaveLength(2);
    expect(done.attempts.map((a: any) => [a.number, a.url, a.status_code])).toEqual(
      expect.arrayContaining([
        [1, good.url, 200],
        [1, bad.url, 500],
        [2, bad.url, 200],
      ]),
    );

    await j.api("POST", `/webhook-messages/${m.id}/replay`);
    await good.waitFor(2);
    await bad.waitFor(3);
    expect(good.received[1]?.headers["webhook-id"]).toBe(m.id);
  });
});

describe("automatic disabling", () => {
  test("an endpoint failing for 5 days is disabled, the others are told, and it can be enabled again", async () => {
    const { j, clock } = await start({ env: { JUNCTION_WEBHOOK_SWEEP_INTERVAL: "1d" } });
    const good = receiver();
    const bad = receiver();
    bad.answer({ status: 502, body: "bad gateway" });
    await setupCalendar(j, [good.url, bad.url]);
    const badId = (await j.api("GET", "/webhook-settings")).body.data.endpoints[1].id as string;

    const first = await notify(j, googHeaders(URI, { channelId: "dis-1" }));
    await messageOf(j, first.body.data.id);
    await clock.advance(5 * DAY - 1000);
    const stillEnabled = (await j.api("GET", "/webhook-settings")).body.data.endpoints[1];
    expect(stillEnabled.enabled).toBe(true);

    await clock.advance(1000);
    const second = await notify(j, googHeaders(URI, { channelId: "dis-2" }));
    await messageOf(j, second.body.data.id);
    const notice = await waitFor("the endpoint_disabled message", () =>
      bodies(good.received).find((b) => (b as { type: string }).type === "endpoint_disabled"),
    );
    expect(notice).toMatchObject({ from: "junction", type: "endpoint_disabled", endpointId: badId, url: bad.url });
    expect((notice as unknown as { reason: string }).reason).toContain("HTTP 502");
    const settings = (await j.api("GET", "/webhook-settings")).body.data.endpoints;
    expect(settings[1]).toMatchObject({ id: badId, enabled: false });
    expect(j.logLines.some((l) => l.includes("webhook endpoint disabled") && l.includes(badId))).toBe(true);

    // Disabled: the next message goes to the good endpoint only, and succeeds.
    const badCount = bad.received.length;
    const third = await notify(j, googHeaders(URI, { channelId: "dis-3" }));
    expect((await waitForStatus(j, (await messageOf(j, third.body.data.id)).id, "succeeded")).attempts).toHaveLength(1);
    expect(bad.received).toHaveLength(badCount);

    const enabled = await j.api("POST", `/webhook-settings/endpoints/${badId}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body.data.endpoints[1]).toEqual({
      id: badId,
      url: bad.url,
      enabled: true,
      disabled_reason: null,
      failing_since: null,
    });
    bad.answer({ status: 200 });
    await notify(j, googHeaders(URI, { channelId: "dis-4" }));
    await waitFor("the re-enabled endpoint to get a message", () =>
      bad.received.some((d) => d.status === 200 && d.body.includes("dis-4")),
    );

    const unknown = await j.api("POST", "/webhook-settings/endpoints/ep_00000000000000000000000000/enable");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("unknown_endpoint");
    expect((await j.api("POST", "/webhook-settings/endpoints/nope/enable")).status).toBe(400);
  });

  test("with no endpoint left to tell, a log line says so and messages are exhausted until one is enabled", async () => {
    const { j, clock } = await start({
      env: { JUNCTION_WEBHOOK_SWEEP_INTERVAL: "1d", JUNCTION_WEBHOOK_DISABLE_AFTER: "2h" },
    });
    const only = receiver();
    only.answer({ status: 500 });
    await setupCalendar(j, [only.url]);
    await messageOf(j, (await notify(j, googHeaders(URI, { channelId: "solo-1" }))).body.data.id);
    await clock.advance(2 * 60 * 60 * 1000);
    await messageOf(j, (await notify(j, googHeaders(URI, { channelId: "solo-2" }))).body.data.id);
    await waitFor("the log line", () =>
      j.logLines.some((l) => l.includes("no enabled webhook endpoint is left to tell")),
    );
    const third = await notify(j, googHeaders(URI, { channelId: "solo-3" }));
    const log = await waitForMessages(j, 1, "status=exhausted");
    const m = log.find((x: any) => x.notification_id === third.body.data.id);
    expect(m).toMatchObject({ attempt_count: 0, last_error: "every webhook endpoint is disabled" });
  });
});

describe("where messages may go", () => {
  test("with no endpoint configured a message is kept exhausted, and delivered on replay once one is", async () => {
    const { j } = await start();
    await j.api("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" });
    const res = await notify(j, googHeaders(URI, { channelId: "none-1" }));
    const [m] = await waitForMessages(j, 1, "status=exhausted");
    expect(m).toMatchObject({ notification_id: res.body.data.id, last_error: "no webhook endpoint is configured" });
    const rx = receiver();
    await j.api("PUT", "/webhook-settings", { endpoints: [rx.url] });
    await j.api("POST", `/webhook-messages/${m.id}/replay`);
    const [got] = await rx.waitFor(1);
    expect(got?.headers["webhook-id"]).toBe(m.id);
  });

  test("private and loopback endpoints are refused unless the operator allows them, at save and at delivery", async () => {
    const dir = tempDir();
    cleanups.push(async () => dir.remove());
    const rx = receiver();
    const clock = new ManualClock();
    const allowed = await start({ dataDir: dir.path, clock });
    await setupCalendar(allowed.j, [rx.url]);
    await allowed.j.close({ keepData: true });
    cleanups.shift();

    const strict = await start({
      dataDir: dir.path,
      clock,
      // No private host allowed at all: the operator's allow list applies to endpoints too.
      env: {
        JUNCTION_WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: "false",
        JUNCTION_ALLOWED_PRIVATE_HOSTS: "",
        JUNCTION_WEBHOOK_RETRY_SCHEDULE: "0s",
      },
    });
    const saved = await strict.j.api("PUT", "/webhook-settings", { endpoints: [rx.url, "https://10.1.2.3/hooks"] });
    expect(saved.status).toBe(400);
    // One address policy, one code, wherever a URL enters.
    expect(saved.body.error.code).toBe("private_address_not_allowed");
    // The endpoint saved while allowed is refused when delivering, without a request.
    const res = await notify(strict.j, googHeaders(URI, { channelId: "private-1" }));
    const m = await waitForStatus(strict.j, (await messageOf(strict.j, res.body.data.id)).id, "exhausted");
    expect(m.attempts[0]).toMatchObject({ status_code: null, error: expect.stringContaining("refused") });
    expect(rx.received).toHaveLength(0);
  });

  test("the delivery queue carries any message type (auth webhooks of the OAuth flow use it)", async () => {
    const { j, clock } = await start();
    const rx = receiver();
    await j.api("PUT", "/webhook-settings", { endpoints: [rx.url] });
    const secret = (await j.api("POST", "/webhook-settings/signing-secret", {})).body.data.signing_secret as string;
    const messageId = newId("msg");
    const body = '{"connectionId":"c1","from":"junction","operation":"creation","success":true,"type":"auth"}';
    await enqueueAuthMessage(j, messageId, "c1", body);
    const [got] = await rx.waitFor(1);
    expect(got?.body).toBe(body);
    expect(got?.headers["webhook-id"]).toBe(messageId);
    expect(verifyStandard(secret, got?.headers ?? {}, body, 300, Math.floor(clock.now() / 1000))).toEqual({
      valid: true,
    });
    const m = await waitForStatus(j, messageId, "succeeded");
    expect(m).toMatchObject({ type: "auth", connection_id: "c1", provider_config_key: "cal" });
    expect((await j.api("GET", "/webhook-messages?type=auth")).body.data.map((x: any) => x.id)).toEqual([messageId]);
  });
});

describe("the signing secret on first run", () => {
  test("the answer that sets the first endpoint shows it once, it signs, and only a rotation shows another", async () => {
    const dir = tempDir("junction-first-secret-");
    cleanups.push(async () => dir.remove());
    const dataDir = dir.path;
    const { j } = await start({ dataDir });
    const rx = receiver();
    await j.api("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" });
    const none = await j.api("PUT", "/webhook-settings", { endpoints: [] });
    expect(none.body.data.signing_secret).toBeUndefined();

    const first = await j.api("PUT", "/webhook-settings", { endpoints: [rx.url] });
    expect(first.status).toBe(200);
    const secret: string = first.body.data.signing_secret;
    expect(secret).toMatch(/^whsec_/);
    expect(secret.startsWith(first.body.data.signing_secret_prefix)).toBe(true);

    // Never again: not when reading, not when changing or re-adding endpoints, not after a restart.
    expect((await j.api("GET", "/webhook-settings")).text).not.toContain(secret);
    const second = receiver();
    for (const endpoints of [[rx.url, second.url], [], [rx.url]]) {
      const again = await j.api("PUT", "/webhook-settings", { endpoints });
      expect(again.status).toBe(200);
      expect(again.body.data.signing_secret).toBeUndefined();
    }
    await j.close({ keepData: true });
    const { j: restarted, clock } = await start({ dataDir });
    const afterRestart = await restarted.api("PUT", "/webhook-settings", { endpoints: [second.url, rx.url] });
    expect(afterRestart.body.data.signing_secret).toBeUndefined();

    // The secret shown is the one that signs.
    await addConnection(restarted, "mia", { metadata: { calendarWatchResourceUris: [URI] } });
    await notify(restarted, googHeaders(URI, { channelId: "first-secret-1" }));
    const [got] = await rx.waitFor(1);
    const now = Math.floor(clock.now() / 1000);
    expect(verifyStandard(secret, got?.headers ?? {}, got?.body ?? "", 300, now)).toEqual({ valid: true });

    const rotated = await restarted.api("POST", "/webhook-settings/signing-secret", {});
    expect(rotated.body.data.signing_secret).toMatch(/^whsec_/);
    expect(rotated.body.data.signing_secret).not.toBe(secret);
    const afterRotation = await restarted.api("PUT", "/webhook-settings", { endpoints: [rx.url] });
    expect(afterRotation.body.data.signing_secret).toBeUndefined();
  });
});
