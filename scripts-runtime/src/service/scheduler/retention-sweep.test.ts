import { afterEach, describe, expect, test } from "bun:test";
import { codeOf, noSandbox, titled } from "../../../testing/record-test-kit.ts";
import { type ServiceKit, startServiceKit } from "../../../testing/service-test-kit.ts";

const DAY = 86_400_000;
const rec = titled;
const base = { providerConfigKey: "cal", connectionId: "alice", model: "Event", variant: "" };

describe("records retention: the operator's rule, applied on the service clock", () => {
  let kit: ServiceKit | undefined;
  afterEach(async () => {
    await kit?.close();
    kit = undefined;
  });

  test("is off until set; a bad term or an unknown integration is refused", async () => {
    kit = await startServiceKit(noSandbox);
    const a = await kit.instance();
    expect((await a.client.getRecordRetention({ providerConfigKey: "cal" })).retention).toMatchObject({
      payloadDays: 0,
      recordsDays: 0,
    });
    const set = (payloadDays: number, recordsDays: number, providerConfigKey = "cal") =>
      a.client.setRecordRetention({ providerConfigKey, retention: { payloadDays, recordsDays } });
    expect(await codeOf(set(-1, 0))).toBe("invalid_request");
    expect(await codeOf(set(0, 3651))).toBe("invalid_request");
    expect(await codeOf(set(1, 1, "nope"))).toBe("unknown_provider_config");
    expect((await set(30, 60)).retention).toMatchObject({ payloadDays: 30, recordsDays: 60 });
    expect((await a.client.getRecordRetention({ providerConfigKey: "cal" })).retention).toMatchObject({
      payloadDays: 30,
      recordsDays: 60,
    });
  });

  test("prunes payloads after N days unchanged and deletes records after M days without a run, never past what was read", async () => {
    kit = await startServiceKit(noSandbox);
    await kit.connect("alice");
    const a = await kit.instance({ recordRetentionSweepMs: DAY });
    await a.client.setRecordRetention({ providerConfigKey: "cal", retention: { payloadDays: 30, recordsDays: 60 } });
    const env = (await kit.connections.getEnvironment({})).environment?.id as string;
    const scope = { ...base, environmentId: env, variant: "base" };
    await a.stores.records.save(scope, [rec("1"), rec("2"), rec("3")], { now: a.clock.now() });
    // The app reads two of the three.
    const page = JSON.parse((await a.client.listRecords({ ...base, cursor: "", limit: 2 })).recordsJson);
    expect(page.map((r: { id: string }) => r.id)).toEqual(["1", "2"]);
    const state = async () =>
      (
        await a.stores.records.list(scope, { afterSeq: null, limit: 10, actions: null, modifiedAfter: null, ids: null })
      ).records.map((r) => `${r.id}:${r.data === null ? "pruned" : "kept"}`);

    // A pass a day: at day 30 the records are exactly 30 days old, at day 31 older.
    await a.clock.advance(30 * DAY);
    expect(await state()).toEqual(["1:kept", "2:kept", "3:kept"]);
    await a.clock.advance(DAY);
    expect(await state()).toEqual(["1:pruned", "2:pruned", "3:kept"]);
    await a.clock.advance(30 * DAY);
    // Record 3 was never read: neither pruned nor deleted.
    expect(await state()).toEqual(["3:kept"]);
    // Once read, it goes at the next pass.
    await a.client.listRecords({ ...base, cursor: "", limit: 10 });
    await a.clock.advance(DAY);
    expect(await state()).toEqual([]);
  });
});
