import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { CAL, useScriptsWorld } from "./scripts-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(90_000);

const DAY = 86_400_000;
const world = useScriptsWorld();
const SYNC = `import { createSync } from "nango";
export default createSync({
  frequency: "1d",
  autoStart: false,
  exec: async (nango) => {
    await nango.batchSave(["1", "2", "3"].map((id) => ({ id, n: Number(id) })), "Item");
  },
});
`;

describe("records retention set by the operator", () => {
  test("PUT /integrations/{key}/records-retention: off by default, set, read back; bad input refused", async () => {
    const w = await world();
    expect((await w.api("GET", `/integrations/${CAL}/records-retention`)).body).toEqual({
      data: { payload_days: 0, records_days: 0 },
    });
    const put = (body: unknown, key = CAL) => w.api("PUT", `/integrations/${key}/records-retention`, body);
    expect((await put({ payload_days: 30, records_days: 60 })).body).toEqual({
      data: { payload_days: 30, records_days: 60 },
    });
    expect((await w.api("GET", `/integrations/${CAL}/records-retention`)).body.data.records_days).toBe(60);
    for (const bad of [{ payload_days: -1 }, { records_days: 3651 }, { payload_days: 1.5 }, { days: 3 }]) {
      const res = await put(bad);
      expect([res.status, res.body.error.code]).toEqual([400, "invalid_body"]);
    }
    const unknown = await put({ payload_days: 1 }, "nope");
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "unknown_provider_config"]);
  });

  test("payloads go after N days unchanged, only those the app has read (GET /records)", async () => {
    const clock = new ManualClock();
    const w = await world({ clock, env: { JUNCTION_SCRIPTS_RECORD_RETENTION_SWEEP_MS: String(DAY) } });
    await w.connect("alice");
    await w.deploy("items", SYNC);
    expect((await w.api("PUT", `/integrations/${CAL}/records-retention`, { payload_days: 2 })).status).toBe(200);
    const trigger = await w.api("POST", "/sync/trigger", {
      provider_config_key: CAL,
      connection_id: "alice",
      syncs: ["items"],
    });
    expect(trigger.status).toBe(200);
    expect((await w.finishedRuns({ script: "items" }, 1))[0].status).toBe("succeeded");
    const read = (limit: number) =>
      w.api("GET", `/records?model=Item&limit=${limit}`, undefined, {
        "connection-id": "alice",
        "provider-config-key": CAL,
      });
    expect((await read(2)).body.records.map((r: any) => r.id)).toEqual(["1", "2"]);
    await clock.advance(3 * DAY);
    const after = (await read(10)).body.records.map((r: any) => [
      r.id,
      r.n ?? null,
      r._nango_metadata.pruned_at !== null,
    ]);
    expect(after).toEqual([
      ["1", null, true],
      ["2", null, true],
      ["3", 3, false],
    ]);
  });
});
