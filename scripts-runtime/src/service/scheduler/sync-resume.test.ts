import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { RunStatus, SyncState } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { runningRecord } from "../../runtime/run-and-record.ts";
import type { ScriptRunRecord } from "../../store/records.ts";
import { ScriptRuntime } from "../../runtime/script-runtime.ts";
import { type KitInstance, startServiceKit, useServiceKits } from "../../../testing/service-test-kit.ts";

// Runs start sandbox processes and wait on real time (a deadline of 1.5 s): slow under a loaded machine.
setDefaultTimeout(60_000);

const kits = useServiceKits(1);

/** Saves one Item per page and a checkpoint after each; a first run (no checkpoint) hangs after page 2. */
const PAGED = `export default createSync({ frequency: "every day", exec: async (nango) => {
  const cp = await nango.getCheckpoint();
  let page = cp ? cp.page : 0;
  if (cp) await nango.log("resumed at page " + page);
  await nango.trackDeletesStart("Item");
  while (page < 4) {
    await nango.batchSave([{ id: "item-" + page }], "Item");
    page++;
    await nango.saveCheckpoint({ page });
    if (page === 2 && !cp) { for (;;) {} }
  }
  await nango.trackDeletesEnd("Item");
  await nango.clearCheckpoint();
} });`;
/** What an earlier version found upstream: item-0 and item-old (gone since). */
const EARLIER = `export default createSync({ frequency: "every day", exec: async (nango) => {
  await nango.trackDeletesStart("Item");
  await nango.batchSave([{ id: "item-0" }, { id: "item-old" }], "Item");
  await nango.trackDeletesEnd("Item");
} });`;

async function runsOf(i: KitInstance, env: string, count: number): Promise<ScriptRunRecord[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const runs = (await i.stores.runs.list(env, { scriptName: "items" })).reverse();
    if (runs.length >= count && runs.every((r) => r.status !== "running")) return runs;
    if (Date.now() > deadline) throw new Error(`wanted ${count} finished runs, got ${runs.map((r) => r.status)}`);
    await Bun.sleep(20);
  }
}

async function items(i: KitInstance, env: string) {
  const scope = { environmentId: env, providerConfigKey: "cal", connectionId: "c1", model: "Item", variant: "base" };
  const query = { afterSeq: null, limit: 100, actions: null, modifiedAfter: null, ids: null };
  const { records } = await i.stores.records.list(scope, query);
  return records.map((r) => [r.id, r.action]).sort();
}

describe("a sync stopped at its deadline resumes from its checkpoint", () => {
  test("timed out after two pages: the next run starts at once from page 2, and deletion tracking spans both runs", async () => {
    const kit = await kits.start();
    await kit.connect("c1");
    const a = await kit.instance({ timeoutMs: 1500 });
    const env = (await kit.connections.getEnvironment({})).environment?.id ?? "";
    await a.client.deployScript({ providerConfigKey: "cal", name: "items", source: EARLIER });
    await a.client.triggerSyncs({ providerConfigKey: "cal", syncs: ["items"], connectionId: "c1" });
    expect((await runsOf(a, env, 1)).map((r) => r.status)).toEqual(["succeeded"]);

    await a.client.deployScript({ providerConfigKey: "cal", name: "items", source: PAGED });
    await a.client.triggerSyncs({ providerConfigKey: "cal", syncs: ["items"], connectionId: "c1" });
    // No trigger, no clock moved: the resume is started by the stopped run's end.
    const runs = await runsOf(a, env, 3);
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "timed_out", "succeeded"]);
    expect(runs[2]?.logs.map((l) => l.message)).toContain("resumed at page 2");
    // item-0 and item-1 were saved by the stopped run: seen, not deleted; item-old is gone upstream.
    expect(await items(a, env)).toEqual([
      ["item-0", "ADDED"],
      ["item-1", "ADDED"],
      ["item-2", "ADDED"],
      ["item-3", "ADDED"],
      ["item-old", "DELETED"],
    ]);
    const status = await a.client.getSyncStatus({ providerConfigKey: "cal", syncs: ["items"], connectionId: "c1" });
    expect(status.syncs[0]?.latestRunStatus).toBe(RunStatus.SUCCEEDED);
  });

  test("runs left running by a scripts service that died are found at the next start: interrupted, counted, and resumed when they saved a checkpoint", async () => {
    const kit = await kits.start();
    await kit.connect("c1");
    await kit.connect("c2");
    const a = await kit.instance();
    const env = (await kit.connections.getEnvironment({})).environment?.id ?? "";
    await a.client.deployScript({ providerConfigKey: "cal", name: "items", source: PAGED });
    // What a process killed mid-run leaves: its runs `running`, its leases held, c1's checkpoint.
    const now = a.clock.now();
    for (const connectionId of ["c1", "c2"]) {
      await a.stores.runs.insert(deadRun(env, connectionId, now));
      const key = { environmentId: env, providerConfigKey: "cal", scriptName: "items", connectionId };
      expect(await a.stores.service.acquireLease(key, { holder: "killed", until: now + 420_000 }, now, null)).toBe(
        true,
      );
    }
    const checkpointKey = { environmentId: env, providerConfigKey: "cal", connectionId: "c1", variant: "base" };
    await a.stores.records.saveCheckpoint({ ...checkpointKey, syncName: "items" }, { page: 2 }, now);
    await a.scripts.stop();
    await kit.advance(10 * 60_000); // past the longest a run can take (queue wait, deadline, margin)

    const b = await kit.instance();
    const list = async (connectionId: string) => (await b.stores.runs.list(env, { connectionId })).reverse();
    const deadline = Date.now() + 30_000;
    while ((await list("c1")).some((r) => r.status === "running") || (await list("c1")).length < 2) {
      if (Date.now() > deadline) throw new Error("c1's run was not resumed");
      await Bun.sleep(20);
    }
    const c1 = await list("c1");
    expect(c1.map((r) => [r.trigger, r.status])).toEqual([
      ["schedule", "interrupted"],
      ["manual", "succeeded"],
    ]);
    expect(c1[0]?.error?.name).toBe("RunInterrupted");
    expect(c1[1]?.logs.map((l) => l.message)).toContain("resumed at page 2");
    // c2 saved no checkpoint: interrupted, and left to its schedule.
    expect((await list("c2")).map((r) => r.status)).toEqual(["interrupted"]);
    const status = await b.client.getSyncStatus({ providerConfigKey: "cal", syncs: ["items"], connectionId: "c2" });
    expect(status.syncs[0]).toMatchObject({ state: SyncState.ERROR, latestRunStatus: RunStatus.INTERRUPTED });
    const text = await b.metrics.render();
    expect(text).toContain('junction_sync_runs_stopped_total{status="interrupted"} 2');
  });
});

describe("a sync run in progress when its scripts service stops", () => {
  test("is recorded interrupted, not crashed, and its resume is left queued for the next start", async () => {
    const runtime = await ScriptRuntime.start({ poolSize: 1 });
    const kit = await startServiceKit(async () => runtime);
    try {
      await kit.connect("c1");
      const a = await kit.instance();
      const env = (await kit.connections.getEnvironment({})).environment?.id ?? "";
      await a.client.deployScript({ providerConfigKey: "cal", name: "items", source: PAGED });
      await a.client.triggerSyncs({ providerConfigKey: "cal", syncs: ["items"], connectionId: "c1" });
      const key = { environmentId: env, providerConfigKey: "cal", connectionId: "c1", variant: "base" };
      for (let i = 0; (await a.stores.records.getCheckpoint({ ...key, syncName: "items" }))?.page !== 2; i++) {
        if (i > 1000) throw new Error("the run never saved its checkpoint");
        await Bun.sleep(20);
      }
      // The service stops, and with it the sandbox running the sync (its own runtime, in production).
      const stopped = a.scripts.stop();
      await runtime.close();
      await stopped;
      const [run] = await a.stores.runs.list(env, { scriptName: "items" });
      expect(run?.status).toBe("interrupted");
      const schedule = await a.stores.service.getSchedule({ ...key, scriptName: "items" });
      expect(schedule).toMatchObject({ followUp: "incremental", leaseHolder: null });
      expect(await a.metrics.render()).toContain('junction_sync_runs_stopped_total{status="interrupted"} 1');
    } finally {
      await kit.close();
      await runtime.close();
    }
  });
});

function deadRun(environmentId: string, connectionId: string, startedAt: number): ScriptRunRecord {
  const subject = { environmentId, providerConfigKey: "cal", scriptName: "items", scriptVersion: 1, connectionId };
  return runningRecord({ ...subject, trigger: "schedule" }, "exec", startedAt);
}
