import { afterEach, describe, expect, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { CAL, useScriptsWorld } from "./scripts-kit.ts";
import { connectedId, proxyGet, revokeAndExpire, useOAuthWorld } from "./oauth-e2e-kit.ts";
import {
  addConnection,
  eventsUri,
  googHeaders,
  notify,
  setupCalendar,
  startCustomerReceiver,
} from "./notifications-kit.ts";

const URI = eventsUri("lee@example.com");
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The operations of `kind`, once there are `n` of them. */
async function operations(j: TestJunction, kind: string, n: number): Promise<any[]> {
  return waitFor(`${n} ${kind} operations`, async () => {
    const res = await j.api("GET", `/logs/operations?kind=${kind}`);
    return res.body.data?.length >= n ? res.body.data : null;
  });
}

describe("the operations log records notifications and deliveries", () => {
  test("a notification received as its minute's total, its delivery round naming it, with the attempt's answer; a refused one its own row", async () => {
    const minute = Date.UTC(2026, 10, 21, 12, 0, 0);
    const clock = new ManualClock(minute + 1_000);
    const j = await startTestJunction({ clock });
    const rx = startCustomerReceiver();
    cleanups.push(
      () => j.close(),
      () => rx.stop(),
    );
    await setupCalendar(j, [`${rx.url}/hook?token=endpoint-secret`]);
    await addConnection(j, "lee", { metadata: { calendarWatchResourceUris: [URI] } });
    const sent = await notify(j, googHeaders(URI, { channelId: "ops-1" }));
    expect(sent.status).toBe(200);

    const [delivery] = await operations(j, "webhook_delivery", 1);
    expect(delivery).toMatchObject({ status: "success", integration: "cal", connection: "lee" });
    expect(delivery.title).toMatch(/^forward message msg_\S+ of ntf_\S+: succeeded$/);
    const attempts = (await j.api("GET", `/logs/operations/${delivery.id}`)).body.data.messages;
    expect(attempts[0].text).toBe(`attempt 1 to ${rx.url}/hook?…: answered 200`);
    expect(attempts[0].fields).toMatchObject({ statusCode: 200 });
    expect(JSON.stringify(attempts)).not.toContain("endpoint-secret");

    // A message of a connection found through the search: the delivery's words; a notification by its id.
    const found = await j.api("GET", "/logs/operations?q=attempt%20answered&connection=lee");
    expect(found.body.data.map((o: { id: string }) => o.id)).toEqual([delivery.id]);
    const ntf = (delivery.title as string).split(" of ")[1]?.split(":")[0] as string;
    const byId = await j.api("GET", `/logs/operations?q=${ntf}`);
    expect(byId.body.data.map((o: { id: string }) => o.id)).toEqual([delivery.id]);

    // The receipt itself is counted into its minute's total, written when the minute ends.
    await clock.advance(60_000);
    const [received] = await operations(j, "notification_received", 1);
    expect(received).toMatchObject({
      status: "success",
      integration: "cal",
      connection: null,
      title: "notification for cal: recorded ×1",
      count: 1,
      period: { start: new Date(minute).toISOString(), end: new Date(minute + 60_000).toISOString() },
    });

    // A notification for a webhook URL no integration has is refused, and recorded as such, at once.
    expect((await notify(j, googHeaders(URI, { channelId: "ops-2" }), { key: "nope" })).status).toBe(404);
    const refused = await waitFor("a refused notification", async () => {
      const res = await j.api("GET", "/logs/operations?kind=notification_received&status=refused");
      return res.body.data?.[0];
    });
    expect(refused).toMatchObject({ integration: "nope", title: "notification for nope: unknown_webhook_url" });
  });

  test("with JUNCTION_LOGS_NOTIFICATION_RECEIPTS=true each receipt is a row with its notification's id", async () => {
    const j = await startTestJunction({ env: { JUNCTION_LOGS_NOTIFICATION_RECEIPTS: "true" } });
    const rx = startCustomerReceiver();
    cleanups.push(
      () => j.close(),
      () => rx.stop(),
    );
    await setupCalendar(j, [`${rx.url}/hook`]);
    await addConnection(j, "lee", { metadata: { calendarWatchResourceUris: [URI] } });
    expect((await notify(j, googHeaders(URI, { channelId: "ops-3" }))).status).toBe(200);
    const [received] = await operations(j, "notification_received", 1);
    expect(received).toMatchObject({ status: "success", integration: "cal", count: 1, period: null });
    const detail = (await j.api("GET", `/logs/operations/${received.id}`)).body.data;
    expect(detail.messages[0].text).toMatch(/^recorded ntf_/);
  });
});

describe("the operations log records token refreshes", () => {
  const world = useOAuthWorld();
  test("a refresh that succeeds and one the token endpoint refuses, with the connection and no token", async () => {
    const w = await world();
    const id = await connectedId(w);
    await w.clock.advance(3_600_000);
    expect((await proxyGet(w, id)).status).toBe(200);
    const [ok] = await operations(w.j, "token_refresh", 1);
    expect(ok).toMatchObject({ status: "success", connection: id, title: "token refreshed" });

    await revokeAndExpire(w, id);
    expect((await proxyGet(w, id)).status).toBe(424);
    const [failed] = await operations(w.j, "token_refresh", 2);
    expect(failed).toMatchObject({ status: "failed", connection: id });
    const detail = (await w.j.api("GET", `/logs/operations/${failed.id}`)).body.data;
    expect(detail.messages[0].text).toContain("invalid_grant");
    const all = JSON.stringify((await w.j.api("GET", "/logs/operations?limit=500")).body);
    expect(all).not.toContain("e2e-client-secret-do-not-log");
  });
});

describe("the operations log records script runs", () => {
  const scripts = useScriptsWorld();
  test("an action run with its logs as messages, its script and run as tags, and its error", async () => {
    const w = await scripts();
    await w.connect("ada");
    await w.deploy(
      "explode",
      `import { createAction } from "nango";\nexport default createAction({\n  exec: async (nango) => {\n    await nango.log("starting the explosion");\n    throw new Error("kaboom");\n  },\n});\n`,
    );
    const res = await w.api(
      "POST",
      "/action/trigger",
      { action_name: "explode" },
      { "connection-id": "ada", "provider-config-key": CAL },
    );
    expect(res.status).toBeGreaterThanOrEqual(400);
    const [run] = await operations(w.j, "action_run", 1);
    expect(run).toMatchObject({ status: "failed", integration: CAL, connection: "ada" });
    expect(run.tags).toContain("script:explode");
    const detail = (await w.api("GET", `/logs/operations/${run.id}`)).body.data;
    expect(detail.messages.map((m: { text: string }) => m.text)).toEqual([
      'called by secret key "JUNCTION_SECRET_KEY"',
      "starting the explosion",
      "Error: kaboom",
    ]);
    expect((await w.api("GET", "/logs/operations?tag=script:explode&q=kaboom")).body.data).toHaveLength(1);
  }, 60_000);
});
