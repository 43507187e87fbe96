import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { ScriptRunRecord } from "../../store/records.ts";
import { type ServiceKit, useServiceKits } from "../../../testing/service-test-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const kits = useServiceKits(1);
let kit: ServiceKit | undefined;

const SYNC = 'export default createSync({ frequency: "every day", exec: async (nango) => { nango.log("ran"); } });';

/** Waits (on the runs themselves, with a deadline) until `count` runs of `connectionId` are finished. */
async function finished(
  list: () => Promise<ScriptRunRecord[]>,
  connectionId: string,
  count: number,
): Promise<ScriptRunRecord[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const runs = (await list()).filter((r) => r.connectionId === connectionId);
    if (runs.length >= count && runs.every((r) => r.status !== "running")) return runs;
    if (Date.now() > deadline) throw new Error(`wanted ${count} finished runs, got ${runs.map((r) => r.status)}`);
    await Bun.sleep(20);
  }
}

describe("sync control across a restart", () => {
  test("a pause and a connection's own frequency are kept by the store", async () => {
    kit = await kits.start();
    await kit.connect("c1");
    await kit.connect("c2");
    const a = await kit.instance();
    await a.client.deployScript({ providerConfigKey: "cal", name: "daily", source: SYNC });
    await a.client.setSyncsPaused({ providerConfigKey: "cal", syncs: ["daily"], connectionId: "c1", paused: true });
    const set = await a.client.setSyncFrequency({
      providerConfigKey: "cal",
      connectionId: "c2",
      syncName: "daily",
      frequency: "every half hour",
    });
    expect(set.frequency).toBe("30m");
    await a.scripts.stop();

    const b = await kit.instance();
    const env = (await kit.connections.getEnvironment({})).environment?.id ?? "";
    const runs = () => b.stores.runs.list(env, { scriptName: "daily" });
    // An hour at c2's own half-hour frequency (a day would run nothing): the manual clock fires the
    // half-hour timer, and the hour's one if the scheduler re-armed in time, so one or two runs.
    await kit.advance(HOUR);
    const firstHour = await finished(runs, "c2", 1);
    expect(firstHour.length).toBeGreaterThanOrEqual(1);
    expect(firstHour.length).toBeLessThanOrEqual(2);
    await kit.advance(DAY);
    expect((await finished(runs, "c2", 2)).length).toBeGreaterThanOrEqual(2);
    expect(await finished(runs, "c1", 0)).toEqual([]); // paused: a day went by without it
    const reset = await b.client.setSyncFrequency({ providerConfigKey: "cal", connectionId: "c1", syncName: "daily" });
    expect(reset.frequency).toBe("every day");
    const status = await b.client.getSyncStatus({ providerConfigKey: "cal", syncs: [], connectionId: "" });
    expect(status.syncs.map((s) => [s.connectionId, s.frequency]).sort()).toEqual([
      ["c1", "every day"],
      ["c2", "every half hour"],
    ]);

    const startedAt = b.clock.now();
    await b.client.setSyncsPaused({ providerConfigKey: "cal", syncs: [], connectionId: "c1", paused: false });
    const [first] = await finished(runs, "c1", 1);
    expect([first?.trigger, first?.startedAt]).toEqual(["schedule", startedAt]); // at once, not from before
    await kit.advance(DAY);
    expect(await finished(runs, "c1", 2)).toHaveLength(2);
  });
});
