import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { waitFor } from "../support/wait-for.ts";
import { CAL, syncSource, useScriptsWorld } from "./scripts-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const world = useScriptsWorld();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

// The requests below are the ones @nangohq/node sends: syncStatus (GET, `syncs` comma-joined or "*",
// connection_id left out when not given), pauseSync / startSync (POST {syncs, provider_config_key,
// connection_id?}), updateSyncConnectionFrequency (PUT {sync_name, sync_variant?, provider_config_key,
// connection_id, frequency}).
const statusOf = async (w: Awaited<ReturnType<typeof world>>, syncs: string, connectionId?: string) => {
  const q = new URLSearchParams({
    syncs,
    provider_config_key: CAL,
    ...(connectionId ? { connection_id: connectionId } : {}),
  });
  const res = await w.api("GET", `/sync/status?${q}`);
  expect(res.status).toBe(200);
  return res.body.syncs as any[];
};
const states = (syncs: any[]) => syncs.map((s) => `${s.connection_id}/${s.name}:${s.status}`).sort();

describe("scripts: sync status and control", () => {
  test("status reports each sync per connection in Nango's shape", async () => {
    const clock = new ManualClock();
    const w = await world({ clock });
    await w.connect("alice");
    await w.connect("bob", "bob@example.com");
    const deployedAt = clock.now();
    await w.deploy("daily", syncSource("nango.log('ran');"));
    await w.deploy("manual", syncSource("nango.log('manual');", "autoStart: false"));
    await w.deploy("broken", syncSource("throw new Error('nope');", "autoStart: false"));

    const all = await statusOf(w, "*");
    expect(states(all)).toEqual([
      "alice/broken:PAUSED",
      "alice/daily:SUCCESS",
      "alice/manual:PAUSED",
      "bob/broken:PAUSED",
      "bob/daily:SUCCESS",
      "bob/manual:PAUSED",
    ]);
    const [daily] = await statusOf(w, "daily", "alice");
    expect(daily).toEqual({
      id: expect.stringMatching(/^sync_/),
      connection_id: "alice",
      name: "daily",
      variant: "base",
      status: "SUCCESS",
      nextScheduledSyncAt: new Date(deployedAt + DAY).toISOString(),
      frequency: "1d",
      recordCount: {},
      checkpoint: null,
      latest_run_id: null,
      latest_run_status: null,
    });
    expect((await statusOf(w, "daily,manual::base", "alice")).map((s) => s.name)).toEqual(["daily", "manual"]);

    const trigger = (syncs: string[]) =>
      w.api("POST", "/sync/trigger", { provider_config_key: CAL, connection_id: "alice", syncs });
    expect((await trigger(["daily", "broken"])).status).toBe(200);
    const runs = await w.finishedRuns({ connection_id: "alice" }, 2);
    const after = await statusOf(w, "daily,broken", "alice");
    expect(after.map((s) => [s.name, s.status, s.latest_run_id, s.latest_run_status])).toEqual([
      ["daily", "SUCCESS", runs.find((r) => r.script_name === "daily").id, "succeeded"],
      ["broken", "PAUSED", runs.find((r) => r.script_name === "broken").id, "failed"],
    ]);
    expect(after[0].finishedAt).toBe(runs.find((r) => r.script_name === "daily").finished_at);
    expect(after[0].id).toBe(daily.id);

    // Started, the broken sync runs at once and reports its failure.
    const start = await w.api("POST", "/sync/start", {
      syncs: ["broken"],
      provider_config_key: CAL,
      connection_id: "alice",
    });
    expect([start.status, start.body]).toEqual([200, { success: true }]);
    await w.finishedRuns({ connection_id: "alice", script: "broken" }, 2);
    expect((await statusOf(w, "broken", "alice"))[0].status).toBe("ERROR");

    const cases: [string, number, string][] = [
      [`/sync/status?provider_config_key=${CAL}&syncs=nope`, 404, "unknown_sync"],
      [`/sync/status?provider_config_key=${CAL}&syncs=daily&connection_id=ghost`, 404, "unknown_connection"],
      [`/sync/status?provider_config_key=${CAL}`, 400, "invalid_query_params"],
      ["/sync/status?provider_config_key=nope&syncs=*", 404, "unknown_provider_config"],
    ];
    for (const [path, status, code] of cases) {
      const res = await w.api("GET", path);
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
    }
  });

  test("a running sync reports RUNNING", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("slow", syncSource('await nango.get({ endpoint: "/slow/2000" });'));
    await w.api("POST", "/sync/trigger", { provider_config_key: CAL, connection_id: "alice", syncs: ["slow"] });
    expect((await statusOf(w, "slow", "alice"))[0].status).toBe("RUNNING");
    await w.finishedRuns({ script: "slow" }, 1);
    expect((await statusOf(w, "slow", "alice"))[0].status).toBe("SUCCESS");
  });

  test("a paused sync is not scheduled, a trigger runs it once, and start resumes it at once", async () => {
    const clock = new ManualClock();
    const w = await world({ clock });
    await w.connect("alice");
    await w.connect("bob", "bob@example.com");
    await w.deploy("daily", syncSource("nango.log('ran');"));
    const pause = await w.api("POST", "/sync/pause", {
      syncs: ["daily"],
      provider_config_key: CAL,
      connection_id: "alice",
    });
    expect([pause.status, pause.body]).toEqual([200, { success: true }]);
    expect(states(await statusOf(w, "*"))).toEqual(["alice/daily:PAUSED", "bob/daily:SUCCESS"]);
    expect((await statusOf(w, "daily", "alice"))[0].nextScheduledSyncAt).toBeNull();

    await clock.advance(DAY);
    expect((await w.finishedRuns({ script: "daily" }, 1)).map((r) => r.connection_id)).toEqual(["bob"]);

    // As in Nango, a trigger of a paused sync runs it once; the schedule stays paused.
    const trigger = await w.api("POST", "/sync/trigger", {
      provider_config_key: CAL,
      connection_id: "alice",
      syncs: ["daily"],
    });
    expect(trigger.status).toBe(200);
    await w.finishedRuns({ script: "daily", connection_id: "alice" }, 1);
    expect((await statusOf(w, "daily", "alice"))[0].status).toBe("PAUSED");

    // Every connection at once (no connection_id), as the SDK sends it; unknown names change nothing.
    const refused = await w.api("POST", "/sync/pause", { syncs: ["daily", "nope"], provider_config_key: CAL });
    expect([refused.status, refused.body.error.code]).toEqual([404, "unknown_sync"]);
    expect(states(await statusOf(w, "*"))).toEqual(["alice/daily:PAUSED", "bob/daily:SUCCESS"]);
    expect((await w.api("POST", "/sync/pause", { syncs: [], provider_config_key: CAL })).status).toBe(200);
    expect(states(await statusOf(w, "*"))).toEqual(["alice/daily:PAUSED", "bob/daily:PAUSED"]);
    await clock.advance(2 * DAY);
    expect(await w.runs({ script: "daily" })).toHaveLength(2);

    const start = await w.api("POST", "/sync/start", {
      syncs: [{ name: "daily", variant: "base" }],
      provider_config_key: CAL,
    });
    expect(start.status).toBe(200);
    const runs = await w.finishedRuns({ script: "daily" }, 4);
    expect(
      runs
        .slice(2)
        .map((r) => [r.connection_id, r.trigger])
        .sort(),
    ).toEqual([
      ["alice", "schedule"],
      ["bob", "schedule"],
    ]);
    expect(states(await statusOf(w, "*"))).toEqual(["alice/daily:SUCCESS", "bob/daily:SUCCESS"]);
    expect((await statusOf(w, "daily", "alice"))[0].nextScheduledSyncAt).toBe(
      new Date(clock.now() + DAY).toISOString(),
    );
  });

  test("a connection's own frequency schedules it, and null goes back to the script's", async () => {
    const clock = new ManualClock();
    const w = await world({ clock });
    await w.connect("alice");
    await w.connect("bob", "bob@example.com");
    await w.deploy("daily", syncSource("nango.log('ran');"));
    const set = (frequency: string | null, extra: Record<string, unknown> = {}) =>
      w.api("PUT", "/sync/update-connection-frequency", {
        sync_name: "daily",
        provider_config_key: CAL,
        connection_id: "alice",
        frequency,
        ...extra,
      });
    const hourly = await set("every hour", { sync_variant: "base" });
    expect([hourly.status, hourly.body]).toEqual([200, { frequency: "1h" }]);
    const [alice] = await statusOf(w, "daily", "alice");
    expect([alice.frequency, alice.nextScheduledSyncAt]).toEqual([
      "every hour",
      new Date(clock.now() + HOUR).toISOString(),
    ]);
    await clock.advance(HOUR);
    // A due time that finds the previous run still going is skipped: let the first end before the next hour.
    await w.finishedRuns({ script: "daily" }, 1);
    await clock.advance(HOUR);
    const runs = await w.finishedRuns({ script: "daily" }, 2);
    expect(runs.map((r) => r.connection_id)).toEqual(["alice", "alice"]);

    const reset = await set(null);
    expect([reset.status, reset.body]).toEqual([200, { frequency: "1d" }]);
    expect((await statusOf(w, "daily", "alice"))[0].frequency).toBe("1d");

    const cases: [Record<string, unknown>, number, string][] = [
      [{ frequency: "every 10s" }, 400, "invalid_frequency"],
      [{ frequency: "every fortnight" }, 400, "invalid_frequency"],
      [{ frequency: "1h", sync_name: "nope" }, 404, "unknown_sync"],
      [{ frequency: "1h", connection_id: "ghost" }, 404, "unknown_connection"],
      [{ frequency: "1h", sync_variant: "v2" }, 400, "invalid_body"],
      [{ frequency: 60 }, 400, "invalid_body"],
    ];
    for (const [extra, status, code] of cases) {
      const res = await w.api("PUT", "/sync/update-connection-frequency", {
        sync_name: "daily",
        provider_config_key: CAL,
        connection_id: "alice",
        ...extra,
      });
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
    }
    expect((await statusOf(w, "daily", "alice"))[0].frequency).toBe("1d");
    await waitFor("no run left running", async () => (await w.runs({ status: "running" })).length === 0);
  });
});
