import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ScriptRuntime } from "../../runtime/script-runtime.ts";
import type { ScriptRunRecord } from "../../store/records.ts";
import { type ServiceKit, startServiceKit } from "../../../testing/service-test-kit.ts";
import { scriptsNotificationSink } from "./notification-sink.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

let runtime: ScriptRuntime;
let kit: ServiceKit | undefined;
beforeAll(async () => {
  runtime = await ScriptRuntime.start({ poolSize: 1 });
});
afterAll(() => runtime.close());
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const SUBSCRIBED = `export default createSync({
  frequency: "1d",
  webhookSubscriptions: ["*"],
  exec: async () => {},
  onWebhook: async (nango, message) => { nango.log(message.payload["x-goog-resource-state"]); },
});`;

const notification = (id: string, connectionIds: string[]) => ({
  notificationId: id,
  environmentId: "env",
  providerConfigKey: "cal",
  provider: "google-calendar",
  headers: { "x-goog-resource-state": "exists", "x-goog-channel-id": "ch" },
  connectionIds,
  rule: 0,
  receivedAt: 1,
  body: new Uint8Array(0),
  contentType: "",
  query: "",
});

async function finished(list: () => Promise<ScriptRunRecord[]>, count: number): Promise<ScriptRunRecord[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const runs = await list();
    if (runs.length >= count && runs.every((r) => r.status !== "running")) return runs;
    if (Date.now() > deadline) throw new Error(`wanted ${count} finished runs, got ${runs.length}`);
    await Bun.sleep(20);
  }
}

describe("the scripts notification sink", () => {
  test("hands a notification to onWebhook once per connection, however often it is dispatched", async () => {
    kit = await startServiceKit(async () => runtime);
    await kit.connect("c1");
    await kit.connect("c2");
    const a = await kit.instance();
    await a.client.deployScript({ providerConfigKey: "cal", name: "changes", source: SUBSCRIBED });
    const sink = scriptsNotificationSink(a.client);
    const first = await sink.onNotification(notification("ntf_01kaaaaaaaaaaaaaaaaaaaaaaa", ["c1", "c2"]));
    expect(first?.handledConnectionIds).toEqual(["c1", "c2"]);
    // The webhook service processes a notification again when a later step failed: no second run.
    await sink.onNotification(notification("ntf_01kaaaaaaaaaaaaaaaaaaaaaaa", ["c1", "c2"]));
    const env = (await kit.connections.getEnvironment({})).environment?.id ?? "";
    const runs = await finished(() => a.stores.runs.list(env, { trigger: "webhook" }), 2);
    await a.client.triggerSyncs({ providerConfigKey: "cal", connectionId: "c1", syncs: ["changes"] });
    await finished(() => a.stores.runs.list(env, { trigger: "manual" }), 1);
    expect(await a.stores.runs.list(env, { trigger: "webhook" })).toHaveLength(2);
    expect(runs.map((r) => [r.connectionId, r.entry, r.status, r.logs[0]?.message]).sort()).toEqual([
      ["c1", "onWebhook", "succeeded", "exists"],
      ["c2", "onWebhook", "succeeded", "exists"],
    ]);
  }, 30_000);

  test("remembers an integration without subscriptions for a while, then asks again", async () => {
    kit = await startServiceKit(async () => runtime);
    await kit.connect("c1");
    const a = await kit.instance();
    let now = 0;
    let calls = 0;
    const sink = scriptsNotificationSink(
      {
        dispatchNotification: (req, options) => {
          calls++;
          return a.client.dispatchNotification(req, options);
        },
      },
      { cacheMs: 1000, now: () => now },
    );
    expect(await sink.onNotification(notification("ntf_01kaaaaaaaaaaaaaaaaaaaaaab", ["c1"]))).toEqual({
      handledConnectionIds: [],
    });
    await a.client.deployScript({ providerConfigKey: "cal", name: "changes", source: SUBSCRIBED });
    expect(await sink.onNotification(notification("ntf_01kaaaaaaaaaaaaaaaaaaaaaac", ["c1"]))).toBeUndefined();
    expect(calls).toBe(1);
    now = 1001;
    expect(await sink.onNotification(notification("ntf_01kaaaaaaaaaaaaaaaaaaaaaad", ["c1"]))).toEqual({
      handledConnectionIds: ["c1"],
    });
    expect(calls).toBe(2);
  }, 30_000);

  test("an unmatched notification is not handled: it is forwarded without a connection", async () => {
    kit = await startServiceKit(async () => runtime);
    const a = await kit.instance();
    await a.client.deployScript({ providerConfigKey: "cal", name: "changes", source: SUBSCRIBED });
    const res = await scriptsNotificationSink(a.client).onNotification(
      notification("ntf_01kaaaaaaaaaaaaaaaaaaaaaae", []),
    );
    expect(res?.handledConnectionIds).toEqual([]);
  });
});
