import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { waitFor } from "../support/wait-for.ts";
import { CAL, onEventSource, syncSource, useScriptsWorld } from "./scripts-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const world = useScriptsWorld();
const DAY = 86_400_000;

/** A post-connection-creation marker: its run means the connection's job (schedules first) was processed. */
const MARKER = onEventSource("post-connection-creation", "nango.log('created');");

describe("scripts: syncs on their frequency", () => {
  test("a 1d sync runs once per day per connection, on the service clock", async () => {
    const clock = new ManualClock();
    const w = await world({ clock });
    await w.connect("alice");
    await w.deploy("marker", MARKER);
    await w.deploy(
      "daily",
      syncSource(
        "nango.log('sync ran', nango.connectionId, nango.lastSyncDate ? nango.lastSyncDate.getTime() : null);",
      ),
    );
    await w.connect("bob", "bob@example.com");
    await w.finishedRuns({ connection_id: "bob", script: "marker" }, 1);

    await clock.advance(DAY - 1000);
    expect(await w.runs({ script: "daily" })).toEqual([]);
    await clock.advance(1000);
    const day1 = await w.finishedRuns({ script: "daily" }, 2);
    expect(day1.map((r) => [r.connection_id, r.trigger, r.status]).sort()).toEqual([
      ["alice", "schedule", "succeeded"],
      ["bob", "schedule", "succeeded"],
    ]);
    expect(day1.map((r) => r.logs[0].message).sort()).toEqual(["sync ran alice null", "sync ran bob null"]);

    await clock.advance(DAY / 2);
    await clock.advance(DAY / 2);
    const day2 = await w.finishedRuns({ script: "daily" }, 4);
    expect(day2).toHaveLength(4);
    // An incremental run continues from the start of the last successful one.
    const aliceDay2 = day2.filter((r) => r.connection_id === "alice")[1];
    expect(aliceDay2.logs[0].message).toBe(
      `sync ran alice ${Date.parse(day1.find((r) => r.connection_id === "alice").started_at)}`,
    );
    expect(Date.parse(aliceDay2.started_at) - Date.parse(day1[0].started_at)).toBe(DAY);
  });

  test("a sync never overlaps itself: a due time that finds it running is skipped, a trigger queued", async () => {
    const clock = new ManualClock();
    const w = await world({ clock });
    await w.connect("alice");
    await w.deploy("slow", syncSource('await nango.get({ endpoint: "/slow/3000" }); nango.log("done");'));
    await clock.advance(DAY);
    await waitFor(
      "the slow sync to be running",
      async () => (await w.runs({ script: "slow" }))[0]?.status === "running",
    );
    await clock.advance(DAY);
    // 200 as in Nango (whose scheduler then drops it); Junction queues one follow-up behind the run.
    for (let i = 0; i < 2; i++) {
      const queued = await w.api("POST", "/sync/trigger", {
        provider_config_key: CAL,
        connection_id: "alice",
        syncs: ["slow"],
      });
      expect(queued.status).toBe(200);
      expect(queued.body).toEqual({ success: true, runs: [], queued: [{ sync: "slow", connection_id: "alice" }] });
    }
    const [first, followUp] = await w.finishedRuns({ script: "slow" }, 2);
    expect([first.trigger, first.status, followUp.trigger, followUp.status]).toEqual([
      "schedule",
      "succeeded",
      "manual",
      "succeeded",
    ]);
    expect(Date.parse(followUp.started_at)).toBeGreaterThanOrEqual(Date.parse(first.finished_at));
    expect(w.j.logLines.some((l) => l.includes("sync due time skipped"))).toBe(true);
    expect(await w.runs({ script: "slow" })).toHaveLength(2);

    await clock.advance(DAY);
    const all = await w.finishedRuns({ script: "slow" }, 3);
    expect(all.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
  });

  test("a removed sync runs no more, and a deleted connection's schedule is dropped", async () => {
    const clock = new ManualClock();
    const w = await world({ clock });
    await w.connect("alice");
    await w.connect("bob", "bob@example.com");
    await w.deploy("daily", syncSource("nango.log('ran');"));
    await w.deploy("other", syncSource("nango.log('other ran');"));
    expect((await w.api("DELETE", `/connection/bob?provider_config_key=${CAL}`)).status).toBe(200);
    expect((await w.api("DELETE", `/scripts/${CAL}/other`)).status).toBe(200);
    await clock.advance(DAY);
    const runs = await w.finishedRuns({ script: "daily" }, 1);
    expect(runs.map((r) => r.connection_id)).toEqual(["alice"]);
    expect(await w.runs({ script: "other" })).toEqual([]);
    expect(await w.runs({ connection_id: "bob" })).toEqual([]);
  });
});
