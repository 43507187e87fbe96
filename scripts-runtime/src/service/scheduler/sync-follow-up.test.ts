import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { MetadataWriteMode } from "@junction/contracts/connection/v1/connection_service_pb";
import { SyncMode } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ScriptRunRecord } from "../../store/records.ts";
import { type KitInstance, type ServiceKit, useServiceKits } from "../../../testing/service-test-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const kits = useServiceKits(2);
let kit: ServiceKit | undefined;

// A run holds until the connection's metadata says `go` (the test opens the gate: no sleeping). It
// fails if it finds another run of itself in progress (\`busy\`).
const GATED = `export default createSync({
  frequency: "1d",
  exec: async (nango) => {
    nango.log(nango.lastSyncDate === null ? "full" : "incremental");
    if ((await nango.getMetadata()).busy) throw new Error("overlap");
    await nango.updateMetadata({ busy: true });
    while (!(await nango.getMetadata()).go) {}
    await nango.updateMetadata({ busy: false });
  },
});`;

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

async function world(): Promise<{ a: KitInstance; env: string; runs: () => Promise<ScriptRunRecord[]> }> {
  kit = await kits.start();
  await kit.connect("c1");
  const a = await kit.instance();
  await a.client.deployScript({ providerConfigKey: "cal", name: "gated", source: GATED });
  const env = (await kit.connections.getEnvironment({})).environment?.id ?? "";
  const runs = async () => (await a.stores.runs.list(env, { scriptName: "gated" })).reverse();
  return { a, env, runs };
}

const gate = (open: boolean) =>
  kit?.connections.writeMetadata({
    providerConfigKey: "cal",
    connectionIds: ["c1"],
    metadata: { go: open },
    mode: MetadataWriteMode.UPDATE,
  });
const names = (res: { queued: { name: string; connectionId: string }[] }) =>
  res.queued.map((q) => `${q.name}/${q.connectionId}`);
const trigger = (a: KitInstance, syncMode = SyncMode.INCREMENTAL) =>
  a.client.triggerSyncs({ providerConfigKey: "cal", connectionId: "c1", syncs: ["gated"], syncMode });

describe("a trigger while the sync runs", () => {
  test("queues exactly one follow-up however many triggers come, run when the run ends, never alongside", async () => {
    const { a, runs } = await world();
    await gate(false);
    const first = await trigger(a);
    expect(first.runs).toHaveLength(1);
    for (let i = 0; i < 3; i++) {
      const again = await trigger(a);
      expect([again.runs.length, names(again)]).toEqual([0, ["gated/c1"]]);
    }
    expect(await runs()).toHaveLength(1);
    await gate(true);
    const done = await until(
      "the follow-up to finish",
      runs,
      (r) => r.length === 2 && r.every((x) => x.status === "succeeded"),
    );
    expect(done.map((r) => [r.trigger, r.logs[0]?.message])).toEqual([
      ["manual", "full"],
      ["manual", "incremental"],
    ]);
    // Nothing else was queued: a trigger now starts a run at once.
    expect((await trigger(a)).runs).toHaveLength(1);
    await until("the third run", runs, (r) => r.length === 3 && r.every((x) => x.status !== "running"));
  });

  test("a full refresh among the queued triggers makes the follow-up a full refresh", async () => {
    const { a, runs } = await world();
    await gate(true);
    await trigger(a);
    await until("a first success", runs, (r) => r[0]?.status === "succeeded");
    await gate(false);
    await trigger(a);
    await until("the second run to hold", runs, (r) => r.length === 2);
    expect(names(await trigger(a))).toEqual(["gated/c1"]);
    expect(names(await trigger(a, SyncMode.FULL_REFRESH))).toEqual(["gated/c1"]);
    expect(names(await trigger(a))).toEqual(["gated/c1"]);
    await gate(true);
    const done = await until("the follow-up", runs, (r) => r.length === 3 && r.every((x) => x.status !== "running"));
    expect(done.map((r) => r.logs[0]?.message)).toEqual(["full", "incremental", "full"]);
  });

  test("a follow-up left queued by a process that died runs once its lease lapses", async () => {
    const { a, env, runs } = await world();
    const key = { environmentId: env, providerConfigKey: "cal", scriptName: "gated", connectionId: "c1" };
    // A run of a dead process: its lease held for a minute, a follow-up queued behind it.
    expect(
      await a.stores.service.acquireLease(key, { holder: "dead", until: a.clock.now() + 60_000 }, a.clock.now(), null),
    ).toBe(true);
    await gate(true);
    expect(names(await trigger(a))).toEqual(["gated/c1"]);
    expect(await runs()).toEqual([]);
    await kit?.advance(60_000);
    const [run] = await until("the orphaned follow-up", runs, (r) => r[0]?.status === "succeeded");
    expect(run?.trigger).toBe("manual");
    expect((await a.stores.service.getSchedule(key))?.followUp).toBeNull();
  });
});
