import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ScriptRuntime } from "../../runtime/script-runtime.ts";
import type { ScriptRunRecord } from "../../store/records.ts";
import { type ServiceKit, startServiceKit } from "../../../testing/service-test-kit.ts";
import { WebhookRunLimiter } from "./webhook-run-limiter.ts";

setDefaultTimeout(60_000);

describe("WebhookRunLimiter", () => {
  test("admits runsPerWindow runs per window, then pauses once for pauseMs, then admits again", () => {
    const limiter = new WebhookRunLimiter({ runsPerWindow: 3, windowMs: 1000, pauseMs: 5000 });
    const kinds = (at: number, n: number) => Array.from({ length: n }, () => limiter.admit("s", at).kind);
    expect(kinds(0, 3)).toEqual(["run", "run", "run"]);
    expect(limiter.admit("other", 0).kind).toBe("run");
    expect(limiter.admit("s", 10)).toEqual({ kind: "pause-starts", until: 5010, runs: 3 });
    expect(kinds(5009, 2)).toEqual(["paused", "paused"]);
    expect(kinds(5010, 4)).toEqual(["run", "run", "run", "pause-starts"]);
  });

  test("a new window starts the count again", () => {
    const limiter = new WebhookRunLimiter({ runsPerWindow: 2, windowMs: 1000, pauseMs: 5000 });
    expect([0, 1, 1000, 1001].map((at) => limiter.admit("s", at).kind)).toEqual(["run", "run", "run", "run"]);
  });
});

// A script whose runs cause the notifications that run it. Here the test plays
// the upstream: each finished onWebhook run brings the next notification, as the script's own
// change would. The loop stops at the limit, is recorded once, and the clock ends the pause.
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

const LOOPING = `export default createSync({
  frequency: "1d",
  webhookSubscriptions: ["*"],
  exec: async () => {},
  onWebhook: async (nango) => { nango.log("changed something upstream"); },
});`;

describe("a webhook loop", () => {
  test("is paused after webhookRunsPerWindow runs, recorded once, forwarded meanwhile, and runs again after the pause", async () => {
    kit = await startServiceKit(async () => runtime);
    await kit.connect("c1");
    const a = await kit.instance({ webhookRunsPerWindow: 5, webhookWindowMs: 60_000, webhookPauseMs: 600_000 });
    await a.client.deployScript({ providerConfigKey: "cal", name: "loops", source: LOOPING });
    const env = (await kit.connections.getEnvironment({})).environment?.id ?? "";
    let seq = 0;
    const notify = () =>
      a.client.dispatchNotification({
        notificationId: `ntf_01kaaaaaaaaaaaaaaaaaaaa${String(seq++).padStart(3, "0")}`,
        providerConfigKey: "cal",
        provider: "google-calendar",
        headers: { "x-goog-resource-state": "exists" },
        connectionIds: ["c1"],
      });
    const webhookRuns = () => a.stores.runs.list(env, { trigger: "webhook" });
    const runsEnded = async (count: number): Promise<ScriptRunRecord[]> => {
      for (;;) {
        const runs = await webhookRuns();
        if (runs.length >= count && runs.every((r) => r.status !== "running")) return runs;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };

    const answers: string[][] = [];
    for (let round = 0; round < 20; round++) {
      const res = await notify();
      answers.push(res.handledConnectionIds);
      if (res.handledConnectionIds.length === 0) break;
      await runsEnded(round + 1);
    }
    // Five runs, then the sixth notification starts the pause and is forwarded (not handled).
    expect(answers).toEqual([["c1"], ["c1"], ["c1"], ["c1"], ["c1"], []]);
    expect((await notify()).handledConnectionIds).toEqual([]);
    const runs = await webhookRuns();
    const paused = runs.filter((r) => r.error?.name === "WebhookRunsPaused");
    expect(paused).toHaveLength(1);
    expect(paused[0]).toMatchObject({ status: "failed", scriptName: "loops", connectionId: "c1" });
    expect(paused[0]?.error?.message).toContain('onWebhook of "loops" was started 5 times within 60000 ms');
    expect(runs.filter((r) => r.status === "succeeded")).toHaveLength(5);

    await kit.advance(600_000);
    expect((await notify()).handledConnectionIds).toEqual(["c1"]);
  });
});
