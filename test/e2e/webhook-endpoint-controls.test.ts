import { afterEach, describe, expect, test } from "bun:test";
import { ManualClock, newId } from "@junction/platform";
import { verifyStandard } from "@junction/webhook-service";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import {
  type CustomerReceiver,
  enqueueAuthMessage,
  startCustomerReceiver,
  waitForStatus,
} from "./notifications-kit.ts";

// Disabling and enabling a webhook endpoint by hand (a disabled one gets no attempt; messages are not
// held for it), and a signed test message whose answer comes back to the caller.

interface World {
  j: TestJunction;
  clock: ManualClock;
  /** A customer receiver, stopped after the test. */
  receiver(): CustomerReceiver;
}

let stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  const now = stops.reverse();
  stops = [];
  for (const stop of now) await stop();
});

async function start(): Promise<World> {
  const clock = new ManualClock();
  const j = await startTestJunction({ clock, env: { JUNCTION_WEBHOOK_RETRY_JITTER: "0" } });
  stops.push(() => j.close());
  const receiver = () => {
    const rx = startCustomerReceiver();
    stops.push(() => rx.stop());
    return rx;
  };
  return { j, clock, receiver };
}

/** Puts an auth message on the delivery queue, as the OAuth flow does, and returns its id. */
async function enqueueMessage(j: TestJunction, connectionId: string): Promise<string> {
  const messageId = newId("msg");
  const body = JSON.stringify({ connectionId, from: "junction", operation: "creation", success: true, type: "auth" });
  await enqueueAuthMessage(j, messageId, connectionId, body);
  return messageId;
}

async function endpoints(j: TestJunction, urls: string[]): Promise<string[]> {
  const res = await j.api("PUT", "/webhook-settings", { endpoints: urls });
  return res.body.data.endpoints.map((e: { id: string }) => e.id);
}

describe("disabling an endpoint", () => {
  test("a disabled endpoint gets no attempt; with none enabled the message ends exhausted, and replays after enabling", async () => {
    const { j, receiver } = await start();
    const a = receiver();
    const b = receiver();
    const [idA, idB] = await endpoints(j, [a.url, b.url]);

    const off = await j.api("POST", `/webhook-settings/endpoints/${idB}/disable`);
    expect(off.status).toBe(200);
    expect(off.body.data.endpoints.find((e: any) => e.id === idB)).toMatchObject({
      enabled: false,
      disabled_reason: "disabled by the operator",
    });
    const first = await enqueueMessage(j, "c1");
    const delivered = await waitForStatus(j, first, "succeeded");
    expect(delivered.attempts.map((x: any) => x.url)).toEqual([a.url]);
    expect(b.received).toHaveLength(0);

    await j.api("POST", `/webhook-settings/endpoints/${idA}/disable`);
    const second = await enqueueMessage(j, "c2");
    const held = await waitForStatus(j, second, "exhausted");
    expect(held).toMatchObject({ attempt_count: 0, last_error: "every webhook endpoint is disabled" });
    expect(a.received).toHaveLength(1);

    const on = await j.api("POST", `/webhook-settings/endpoints/${idA}/enable`);
    expect(on.body.data.endpoints.find((e: any) => e.id === idA)).toMatchObject({
      enabled: true,
      disabled_reason: null,
    });
    const replayed = await j.api("POST", "/webhook-messages/replay-failed", { since: 0 });
    expect(replayed.status).toBe(202);
    await waitForStatus(j, second, "succeeded");
    expect(a.received.map((d) => d.headers["webhook-id"])).toEqual([first, second]);
    expect(b.received).toHaveLength(0);
  });

  test("an unknown or malformed endpoint id: 404 unknown_endpoint, 400 invalid_id; nothing changes", async () => {
    const { j, receiver } = await start();
    const a = receiver();
    await endpoints(j, [a.url]);
    for (const action of ["disable", "enable", "test"]) {
      const unknown = await j.api("POST", `/webhook-settings/endpoints/${newId("ep")}/${action}`);
      expect([action, unknown.status, unknown.body.error.code]).toEqual([action, 404, "unknown_endpoint"]);
      const bad = await j.api("POST", `/webhook-settings/endpoints/msg_nothing/${action}`);
      expect([action, bad.status, bad.body.error.code]).toEqual([action, 400, "invalid_id"]);
    }
    expect((await j.api("GET", "/webhook-settings")).body.data.endpoints[0].enabled).toBe(true);
    expect(a.received).toHaveLength(0);
  });
});

describe("a test message", () => {
  test("is signed like every message, answers the endpoint's status, latency and body, and is not logged", async () => {
    const { j, clock, receiver } = await start();
    const a = receiver();
    const [id] = await endpoints(j, [a.url]);
    const secret = (await j.api("POST", "/webhook-settings/signing-secret", {})).body.data.signing_secret as string;
    a.answer({ status: 200, body: '{"received":true}' });
    const res = await j.api("POST", `/webhook-settings/endpoints/${id}/test`);
    expect(res.status).toBe(200);
    const answer = res.body.data;
    expect(answer).toMatchObject({ ok: true, url: a.url, status_code: 200, response_snippet: '{"received":true}' });
    expect(answer.error).toBeNull();
    expect(answer.latency_ms).toBeGreaterThanOrEqual(0);
    const [got] = await a.waitFor(1);
    expect(got?.body).toBe(answer.body);
    expect(JSON.parse(answer.body)).toMatchObject({ from: "junction", type: "test", endpoint_id: id });
    expect(got?.headers["webhook-id"]).toBe(answer.message_id);
    expect(verifyStandard(secret, got?.headers ?? {}, answer.body, 300, Math.floor(clock.now() / 1000))).toEqual({
      valid: true,
    });
    expect((await j.api("GET", "/webhook-messages")).body.data).toEqual([]);
  });

  test("a refusal or no answer comes back as such (a disabled endpoint can be tested before enabling it)", async () => {
    const { j, receiver } = await start();
    const a = receiver();
    const [id] = await endpoints(j, [a.url]);
    await j.api("POST", `/webhook-settings/endpoints/${id}/disable`);
    a.answer({ status: 500, body: "database down" });
    const refused = (await j.api("POST", `/webhook-settings/endpoints/${id}/test`)).body.data;
    expect(refused).toMatchObject({ ok: false, status_code: 500, response_snippet: "database down" });
    expect(refused.error).toContain("500");

    await a.stop();
    const gone = (await j.api("POST", `/webhook-settings/endpoints/${id}/test`)).body.data;
    expect(gone).toMatchObject({ ok: false, status_code: null });
    expect(gone.error).not.toBe("");
    // A test does not count against the endpoint's health, nor enable it.
    expect((await j.api("GET", "/webhook-settings")).body.data.endpoints[0]).toMatchObject({ enabled: false });
  });
});
