import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { ALICE, CAL, CALENDAR_SCOPE, CLIENT, type ScriptsWorld, syncSource, useScriptsWorld } from "./scripts-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const world = useScriptsWorld();

const ON_WEBHOOK = `
  onWebhook: async (nango, message) => {
    nango.log(message.type, message.connectionId, message.from, message.payload["x-goog-resource-state"]);
  }`;

/** Creates a channel on alice's calendar through Junction's proxy, addressed to the integration's webhook URL. */
async function watchAlice(w: ScriptsWorld, id: string): Promise<void> {
  const webhookUrl = (await w.api("GET", `/integrations/${CAL}?include=webhook`)).body.data.webhook_url;
  const res = await fetch(`${w.j.url}/proxy/calendar/v3/calendars/${encodeURIComponent(ALICE)}/events/watch`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TEST_SECRET_KEY}`,
      "provider-config-key": CAL,
      "connection-id": "alice",
      "content-type": "application/json",
    },
    body: JSON.stringify({ id, type: "web_hook", address: webhookUrl }),
  });
  if (res.status !== 200) throw new Error(`watch: ${res.status} ${await res.text()}`);
}

/** A notification nobody is subscribed for: a channel on a calendar no connection has, forwarded unmatched. */
async function unmatchedMarker(w: ScriptsWorld): Promise<void> {
  const webhookUrl = (await w.api("GET", `/integrations/${CAL}?include=webhook`)).body.data.webhook_url;
  w.fake.addUser({ email: "nobody@example.com" });
  const token = w.fake.issueTokens({
    email: "nobody@example.com",
    clientId: CLIENT.clientId,
    scopes: [CALENDAR_SCOPE],
  });
  const res = await fetch(`${w.fake.url}/calendar/v3/calendars/nobody%40example.com/events/watch`, {
    method: "POST",
    headers: { authorization: `Bearer ${token.accessToken}`, "content-type": "application/json" },
    body: JSON.stringify({ id: "marker-channel", type: "web_hook", address: webhookUrl }),
  });
  if (res.status !== 200) throw new Error(`marker watch: ${res.status}`);
  await waitFor("the unmatched marker to be forwarded", () =>
    w.receiver.received.some((r) => r.body.includes("marker-channel") || !JSON.parse(r.body).connectionId),
  );
}

const forwardedFor = (w: ScriptsWorld, connectionId: string) =>
  w.receiver.received.filter((r) => JSON.parse(r.body).connectionId === connectionId);

describe("scripts: syncs subscribed to webhooks", () => {
  test("onWebhook gets matched notifications instead of their being forwarded", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("changes", syncSource("", `\n  webhookSubscriptions: ["*"],${ON_WEBHOOK}`));
    await w.deploy("exists-only", syncSource("", `\n  webhookSubscriptions: ["exists"],${ON_WEBHOOK}`));
    await watchAlice(w, "alice-channel");
    const [sync] = await w.finishedRuns({ script: "changes" }, 1);
    expect(sync).toMatchObject({ trigger: "webhook", entry: "onWebhook", status: "succeeded", connection_id: "alice" });
    expect(sync.logs[0].message).toBe(`forward alice google-calendar sync`);

    w.fake.changeCalendar(ALICE);
    const runs = await w.finishedRuns({ script: "changes" }, 2);
    expect(runs[1].logs[0].message).toBe("forward alice google-calendar exists");
    const [existsOnly] = await w.finishedRuns({ script: "exists-only" }, 1);
    expect(existsOnly.logs[0].message).toBe("forward alice google-calendar exists");

    await unmatchedMarker(w);
    expect(forwardedFor(w, "alice")).toEqual([]);
    expect(await w.runs({ script: "exists-only" })).toHaveLength(1);
  });

  test("with forward_webhooks_too the notification is forwarded as well", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("changes", syncSource("", `\n  webhookSubscriptions: ["*"],${ON_WEBHOOK}`), {
      forward_webhooks_too: true,
    });
    const listed = (await w.api("GET", `/scripts/${CAL}/changes`)).body.data;
    expect(listed.forward_webhooks_too).toBe(true);
    await watchAlice(w, "alice-channel");
    await w.finishedRuns({ script: "changes" }, 1);
    const [forwarded] = await w.receiver.waitFor(1, 10_000);
    expect(JSON.parse(forwarded?.body ?? "{}")).toMatchObject({
      type: "forward",
      connectionId: "alice",
      payload: { "x-goog-channel-id": "alice-channel", "x-goog-resource-state": "sync" },
    });
    // A later deploy without the field keeps the setting; false turns it off.
    expect(
      (await w.deploy("changes", syncSource("", `\n  webhookSubscriptions: ["*"],${ON_WEBHOOK}`))).forward_webhooks_too,
    ).toBe(true);
    expect(
      (
        await w.deploy("changes", syncSource("", `\n  webhookSubscriptions: ["*"],${ON_WEBHOOK}`), {
          forward_webhooks_too: false,
        })
      ).forward_webhooks_too,
    ).toBe(false);
  });

  test("without a subscribed sync, notifications are forwarded as before", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("plain", syncSource(""));
    await watchAlice(w, "alice-channel");
    const [forwarded] = await w.receiver.waitFor(1, 10_000);
    expect(JSON.parse(forwarded?.body ?? "{}")).toMatchObject({ connectionId: "alice", type: "forward" });
    expect(await w.runs({ trigger: "webhook" })).toEqual([]);
  });
});
