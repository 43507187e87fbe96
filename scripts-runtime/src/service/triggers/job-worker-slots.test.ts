import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { RunStatus } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { ScriptRuntime } from "../../runtime/script-runtime.ts";
import type { ScriptRunRecord } from "../../store/records.ts";
import { startServiceKit } from "../../../testing/service-test-kit.ts";

setDefaultTimeout(60_000);

// Looping onWebhook runs must not hold every slot of the `scripts.runs` worker, or an async
// action (or a lifecycle hook) waits in the queue until their deadline.
const LOOP_DEADLINE_MS = 30_000;
/** Generous for a shared 2-core machine; far under the loops' deadline. */
const CANARY_BOUND_MS = 10_000;

let runtime: ScriptRuntime;
beforeAll(async () => {
  runtime = await ScriptRuntime.start({ poolSize: 1, reservedProcesses: 1, limits: { timeoutMs: LOOP_DEADLINE_MS } });
});
afterAll(() => runtime.close());

const LOOPING = `export default createSync({
  frequency: "1d",
  webhookSubscriptions: ["*"],
  exec: async () => {},
  onWebhook: async () => { for (;;) {} },
});`;
const ACTION = `export default createAction({ exec: async () => ({ alive: true }) });`;

async function until<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  const deadline = performance.now() + CANARY_BOUND_MS;
  for (;;) {
    const found = await probe();
    if (found !== null) return found;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${CANARY_BOUND_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("the scripts.runs worker", () => {
  test("with jobConcurrency 2, a looping onWebhook run leaves a slot: an async action runs meanwhile", async () => {
    const kit = await startServiceKit(async () => runtime);
    try {
      await kit.connect("alice");
      const a = await kit.instance({ jobConcurrency: 2, timeoutMs: LOOP_DEADLINE_MS });
      await a.client.deployScript({ providerConfigKey: "cal", name: "loops", source: LOOPING });
      await a.client.deployScript({ providerConfigKey: "cal", name: "ping", source: ACTION });
      const env = (await kit.connections.getEnvironment({})).environment?.id ?? "";
      // Three onWebhook jobs: one takes its slot and loops, the others find no onWebhook slot.
      for (const n of ["001", "002", "003"]) {
        await a.client.dispatchNotification({
          notificationId: `ntf_01kaaaaaaaaaaaaaaaaaaaa${n}`,
          providerConfigKey: "cal",
          provider: "google-calendar",
          headers: { "x-goog-resource-state": "exists" },
          connectionIds: ["alice"],
        });
      }
      const looping = await until("an onWebhook run running", async () => {
        const runs = await a.stores.runs.list(env, { trigger: "webhook", status: "running" });
        return runs[0] ?? null;
      });

      const began = performance.now();
      const { run } = await a.client.runAction({
        providerConfigKey: "cal",
        connectionId: "alice",
        actionName: "ping",
        async: true,
      });
      const ended = await until("the action's end", async () => {
        const found: ScriptRunRecord | null = await a.stores.runs.get(env, run?.id ?? "");
        return found && found.status !== "running" ? found : null;
      });
      expect(ended.status).toBe("succeeded");
      expect(performance.now() - began).toBeLessThan(CANARY_BOUND_MS);

      const cancelled = await a.client.cancelRun({ id: looping.id });
      expect(cancelled.run?.status).toBe(RunStatus.FAILED);
      expect(cancelled.run?.error?.name).toBe("CancelledError");
    } finally {
      await kit.close();
    }
  });
});
