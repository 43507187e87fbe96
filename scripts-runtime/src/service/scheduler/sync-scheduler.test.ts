import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ScriptRuntime } from "../../runtime/script-runtime.ts";
import type { ScriptRunRecord } from "../../store/records.ts";
import { type ServiceKit, startServiceKit } from "../../../testing/service-test-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const DAY = 86_400_000;
let runtime: ScriptRuntime;
let kit: ServiceKit | undefined;

beforeAll(async () => {
  runtime = await ScriptRuntime.start({ poolSize: 2 });
});
afterAll(() => runtime.close());
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const SYNC =
  'export default createSync({ frequency: "1d", exec: async (nango) => { nango.log("ran", nango.connectionId); } });';
const deploy = { providerConfigKey: "cal", name: "daily", source: SYNC };

/** Waits (on the runs themselves, with a deadline) until `count` runs are recorded and finished. */
async function finished(list: () => Promise<ScriptRunRecord[]>, count: number): Promise<ScriptRunRecord[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const runs = await list();
    if (runs.length >= count && runs.every((r) => r.status !== "running")) return runs;
    if (Date.now() > deadline) throw new Error(`wanted ${count} finished runs, got ${runs.map((r) => r.status)}`);
    await Bun.sleep(20);
  }
}

describe("sync scheduler", () => {
  test("two service instances on one SQLite file run each due time exactly once per connection", async () => {
    kit = await startServiceKit(async () => runtime);
    const connections = ["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"];
    for (const c of connections) await kit.connect(c);
    const a = await kit.instance();
    const b = await kit.instance();
    await a.client.deployScript(deploy);
    const env = (await kit.connections.getEnvironment({})).environment?.id ?? "";
    const runsOf = () => b.stores.runs.list(env, { scriptName: "daily" });

    for (let day = 1; day <= 3; day++) {
      await kit.advance(DAY);
      const runs = await finished(runsOf, day * connections.length);
      expect(runs).toHaveLength(day * connections.length);
      const perConnection = new Map<string, number>();
      for (const r of runs) perConnection.set(r.connectionId ?? "", (perConnection.get(r.connectionId ?? "") ?? 0) + 1);
      expect([...perConnection.values()]).toEqual(connections.map(() => day));
      expect(runs.every((r) => r.status === "succeeded" && r.trigger === "schedule")).toBe(true);
    }
  }, 60_000);

  test("due times missed while no instance ran collapse into one run", async () => {
    kit = await startServiceKit(async () => runtime);
    await kit.connect("c1");
    const a = await kit.instance();
    await a.client.deployScript(deploy);
    await a.scripts.stop();
    await kit.advance(3 * DAY + 1000);
    const b = await kit.instance();
    const env = (await kit.connections.getEnvironment({})).environment?.id ?? "";
    const list = () => b.stores.runs.list(env, {});
    expect(await finished(list, 1)).toHaveLength(1);
    await kit.advance(DAY - 2000);
    expect(await list()).toHaveLength(1);
    await kit.advance(1000);
    expect(await finished(list, 2)).toHaveLength(2);
  }, 60_000);
});
