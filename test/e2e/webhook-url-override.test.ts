import { afterEach, describe, expect, test } from "bun:test";
import { verifyStandard } from "@junction/webhook-service";
import {
  addConnection,
  bodies,
  type CustomerReceiver,
  eventsUri,
  googHeaders,
  notify,
  setupCalendar,
  startCustomerReceiver,
  waitForMessages,
  waitForStatus,
} from "./notifications-kit.ts";
import { useOAuthWorld } from "./oauth-e2e-kit.ts";

// Nango's webhook_url_override: a connection's webhooks go to its own URL instead of the endpoints.
const world = useOAuthWorld();
const receivers: CustomerReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.stop();
});

function receiver(): CustomerReceiver {
  const rx = startCustomerReceiver();
  receivers.push(rx);
  return rx;
}

const env = { JUNCTION_WEBHOOK_RETRY_JITTER: "0" };

describe("webhook_url_override", () => {
  test("a session's override gets the connection's auth webhook instead of the endpoints: signed, retried, logged, replayed", async () => {
    const w = await world({ env });
    const endpoint = receiver();
    const hook = receiver();
    hook.answer((n) => ({ status: n === 1 ? 500 : 200 }));
    expect((await w.j.api("PUT", "/webhook-settings", { endpoints: [endpoint.url] })).status).toBe(200);
    const secret = (await w.j.api("POST", "/webhook-settings/signing-secret", {})).body.data.signing_secret as string;
    await w.integration();
    const token = await w.session({ end_user: { id: "user-1" }, webhook_url_override: hook.url });
    expect((await w.callback(await w.authorize("cal", token))).code).toBe("connected");
    const [id] = await w.connectionIds();
    const conn = await w.j.api("GET", `/connection/${id}?provider_config_key=cal`);
    expect(conn.body.webhook_url_override).toBe(hook.url);

    const [first] = await hook.waitFor(1);
    expect(JSON.parse(first?.body ?? "{}")).toMatchObject({ type: "auth", operation: "creation", connectionId: id });
    const now = Math.floor(w.clock.now() / 1000);
    expect(verifyStandard(secret, first?.headers ?? {}, first?.body ?? "", 300, now)).toEqual({ valid: true });
    const [message] = await waitForMessages(w.j, 1, "type=auth");
    const failed = await waitForStatus(w.j, message.id, "failed");
    expect(failed.attempts.map((a: any) => [a.number, a.url, a.status_code])).toEqual([[1, hook.url, 500]]);

    await w.clock.advance(5000);
    const done = await waitForStatus(w.j, message.id, "succeeded");
    expect(done.attempts.map((a: any) => [a.number, a.url, a.status_code])).toEqual(
      expect.arrayContaining([
        [1, hook.url, 500],
        [2, hook.url, 200],
      ]),
    );
    expect((await w.j.api("POST", `/webhook-messages/${message.id}/replay`, {})).status).toBe(202);
    const all = await hook.waitFor(3);
    expect(all[2]?.headers["webhook-id"]).toBe(message.id);
    // As Nango: the environment's endpoints do not get this connection's webhooks.
    expect(endpoint.received).toHaveLength(0);

    // A reconnect without an override keeps it; the re-authorization's webhook goes there too.
    const again = await w.j.api("POST", "/connect/sessions/reconnect", { connection_id: id, integration_id: "cal" });
    expect((await w.callback(await w.authorize("cal", again.body.data.token))).code).toBe("connected");
    const [, , , reauth] = await hook.waitFor(4);
    expect(JSON.parse(reauth?.body ?? "{}")).toMatchObject({ type: "auth", operation: "override", connectionId: id });
    expect((await w.j.api("GET", `/connection/${id}?provider_config_key=cal`)).body.webhook_url_override).toBe(
      hook.url,
    );
    expect(endpoint.received).toHaveLength(0);
  });

  test("a declined authorization's failure webhook goes to the session's override, though no connection exists", async () => {
    const w = await world({ env });
    const endpoint = receiver();
    const hook = receiver();
    await w.j.api("PUT", "/webhook-settings", { endpoints: [endpoint.url] });
    await w.integration();
    const token = await w.session({ end_user: { id: "user-2" }, webhook_url_override: hook.url });
    w.fake.setNextAuthorization({ deny: true });
    expect((await w.callback(await w.authorize("cal", token))).code).toBe("access_denied");
    const [failure] = await hook.waitFor(1);
    expect(JSON.parse(failure?.body ?? "{}")).toMatchObject({ type: "auth", operation: "creation", success: false });
    expect(await w.connectionIds()).toEqual([]);
    expect(endpoint.received).toHaveLength(0);
  });

  test("forwards for a connection with an override go there, others to the endpoints; PATCH sets and clears it", async () => {
    const { j } = await world({ env });
    const endpoint = receiver();
    const hook = receiver();
    await setupCalendar(j, [endpoint.url]);
    const uriA = eventsUri("ann@example.com");
    const uriB = eventsUri("bob@example.com");
    await addConnection(j, "ann", { metadata: { calendarWatchResourceUris: [uriA] } });
    await addConnection(j, "bob", { metadata: { calendarWatchResourceUris: [uriB] } });

    const set = await j.api("PATCH", "/connections/ann?provider_config_key=cal", {
      webhook_url_override: hook.url,
      tags: { team: "core" },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ success: true });
    const ann = await j.api("GET", "/connection/ann?provider_config_key=cal");
    expect(ann.body).toMatchObject({ webhook_url_override: hook.url, tags: { team: "core" } });

    await notify(j, googHeaders(uriA, { channelId: "ch-a" }));
    await notify(j, googHeaders(uriB, { channelId: "ch-b" }));
    const [toHook] = await hook.waitFor(1);
    const [toEndpoint] = await endpoint.waitFor(1);
    expect(bodies([toHook as never])[0]).toMatchObject({ type: "forward", connectionId: "ann" });
    expect(bodies([toEndpoint as never])[0]).toMatchObject({ type: "forward", connectionId: "bob" });

    // Refused URLs are clear 400s and change nothing.
    for (const bad of ["ftp://hooks.example.test/x", "http://10.0.0.5/x", "nope"]) {
      const res = await j.api("PATCH", "/connections/ann?provider_config_key=cal", {
        webhook_url_override: bad,
        tags: { team: "edge" },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_webhook_url", errors: [{ path: "webhook_url_override" }] });
    }
    expect((await j.api("GET", "/connection/ann?provider_config_key=cal")).body).toMatchObject({
      webhook_url_override: hook.url,
      tags: { team: "core" },
    });
    const withUser = await j.api("PATCH", "/connections/bob?provider_config_key=cal", {
      end_user: { id: "u-9", email: "bob@example.com" },
      tags: { team: "edge" },
    });
    expect(withUser.status).toBe(200);
    expect((await j.api("GET", "/connection/bob?provider_config_key=cal")).body).toMatchObject({
      end_user: { id: "u-9", email: "bob@example.com" },
      tags: { end_user_id: "u-9", end_user_email: "bob@example.com", team: "edge" },
      webhook_url_override: null,
    });
    const missing = await j.api("PATCH", "/connections/nobody?provider_config_key=cal", { tags: {} });
    expect(missing.status).toBe(404);

    // "" clears it: the next forward goes to the endpoints.
    expect(
      (await j.api("PATCH", "/connections/ann?provider_config_key=cal", { webhook_url_override: "" })).status,
    ).toBe(200);
    expect((await j.api("GET", "/connection/ann?provider_config_key=cal")).body.webhook_url_override).toBeNull();
    await notify(j, googHeaders(uriA, { channelId: "ch-a2" }));
    const [, second] = await endpoint.waitFor(2);
    expect(bodies([second as never])[0]).toMatchObject({ type: "forward", connectionId: "ann" });
    expect(hook.received).toHaveLength(1);
  });

  test("a session with a refused override is a 400 that does not repeat the URL (it may hold a password)", async () => {
    const { j } = await world({ env });
    await j.api("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" });
    const res = await j.api("POST", "/connect/sessions", {
      end_user: { id: "u" },
      webhook_url_override: "https://user:pw@hooks.example.test/x",
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_webhook_url", errors: [{ path: "webhook_url_override" }] });
    expect(JSON.stringify(res.body)).not.toContain(":pw@");
  });
});
