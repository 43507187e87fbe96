import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { CAL, onEventSource, syncSource, useScriptsWorld } from "./scripts-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const world = useScriptsWorld();
const LOG_MODE = "nango.log('mode', nango.lastSyncDate === null ? 'full' : 'incremental');";

describe("scripts: POST /sync/trigger", () => {
  test("runs the named syncs now and answers Nango's success with the runs", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("events", syncSource(LOG_MODE));
    await w.deploy("calendars", syncSource("nango.log('calendars');"));
    const res = await w.api("POST", "/sync/trigger", {
      sync_mode: "incremental",
      connection_id: "alice",
      provider_config_key: CAL,
      syncs: ["events"],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      runs: [{ sync: "events", connection_id: "alice", status: "running" }],
    });
    const id = res.body.runs[0].id;
    expect(id).toMatch(/^run_/);
    const [run] = await w.finishedRuns({ script: "events" }, 1);
    expect(run).toMatchObject({ id, trigger: "manual", status: "succeeded" });
    expect(await w.runs({ script: "calendars" })).toEqual([]);

    // Headers instead of body fields (Nango's fallback), Nango's {name, variant} form, every sync when empty.
    const byHeaders = await w.api(
      "POST",
      "/sync/trigger",
      { syncs: [{ name: "events", variant: "base" }] },
      {
        "provider-config-key": CAL,
        "connection-id": "alice",
      },
    );
    expect(byHeaders.status).toBe(200);
    await w.finishedRuns({ script: "events" }, 2);
    const all = await w.api("POST", "/sync/trigger", { provider_config_key: CAL, connection_id: "alice", syncs: [] });
    expect(all.body.runs.map((r: any) => r.sync).sort()).toEqual(["calendars", "events"]);
    await w.finishedRuns({ connection_id: "alice" }, 4);
  });

  test("without a connection, every connection of the integration runs, as in Nango", async () => {
    const w = await world();
    await w.connect("alice");
    await w.connect("bob", "bob@example.com");
    await w.deploy("events", syncSource(LOG_MODE));
    const res = await w.api("POST", "/sync/trigger", {
      provider_config_key: CAL,
      syncs: ["events"],
      opts: { reset: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.runs.map((r: any) => r.connection_id).sort()).toEqual(["alice", "bob"]);
    const runs = await w.finishedRuns({ script: "events" }, 2);
    expect(runs.map((r) => [r.connection_id, r.logs[0].message]).sort()).toEqual([
      ["alice", "mode full"],
      ["bob", "mode full"],
    ]);
    const mixed = await w.api("POST", "/sync/trigger", {
      provider_config_key: CAL,
      syncs: ["events"],
      opts: { reset: true },
      full_resync: true,
    });
    expect([mixed.status, mixed.body.error.code]).toEqual([400, "invalid_body"]);
  });

  test("incremental runs continue from the last success; a full refresh starts over", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("events", syncSource(LOG_MODE));
    const trigger = async (body: Record<string, unknown>, n: number) => {
      const res = await w.api("POST", "/sync/trigger", {
        provider_config_key: CAL,
        connection_id: "alice",
        syncs: ["events"],
        ...body,
      });
      expect(res.status).toBe(200);
      return (await w.finishedRuns({ script: "events" }, n)).at(-1).logs[0].message;
    };
    expect(await trigger({}, 1)).toBe("mode full");
    expect(await trigger({ sync_mode: "incremental" }, 2)).toBe("mode incremental");
    expect(await trigger({ sync_mode: "full_refresh" }, 3)).toBe("mode full");
    expect(await trigger({ full_resync: true }, 4)).toBe("mode full");
    expect(await trigger({ opts: { reset: false } }, 5)).toBe("mode incremental");
    expect(await trigger({ opts: { reset: true, emptyCache: true } }, 6)).toBe("mode full");
  });

  test("unknown syncs, unknown connections and bad bodies get clear errors", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("events", syncSource(""));
    await w.deploy("hook", onEventSource("post-connection-creation", ""));
    const cases: [Record<string, unknown>, number, string, RegExp?][] = [
      [{ provider_config_key: CAL, connection_id: "alice", syncs: ["nope"] }, 404, "unknown_sync", /"nope"/],
      [{ provider_config_key: CAL, connection_id: "alice", syncs: ["hook"] }, 404, "unknown_sync", /lifecycle script/],
      [{ provider_config_key: CAL, connection_id: "ghost", syncs: ["events"] }, 404, "unknown_connection", /"ghost"/],
      [{ provider_config_key: "nope", connection_id: "alice", syncs: ["events"] }, 404, "unknown_provider_config"],
      [{ connection_id: "alice", syncs: ["events"] }, 400, "missing_provider_config_key"],
      [{ provider_config_key: CAL, connection_id: "alice" }, 400, "invalid_body"],
      [
        { provider_config_key: CAL, connection_id: "alice", syncs: [{ name: "events", variant: "v2" }] },
        400,
        "invalid_body",
      ],
      [
        { provider_config_key: CAL, connection_id: "alice", syncs: ["events"], sync_mode: "sideways" },
        400,
        "invalid_body",
      ],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await w.api("POST", "/sync/trigger", body);
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
      if (message) expect(res.body.error.message).toMatch(message);
    }
    expect(await w.runs()).toEqual([]);
  });
});
