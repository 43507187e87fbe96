import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { CAL, syncSource, useScriptsWorld } from "./scripts-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const world = useScriptsWorld();

describe("scripts: bad scripts get a recorded run and the service stays up", () => {
  test("a loop without end, a heap without end, a thrown string, megabytes of logs", async () => {
    const w = await world({ env: { JUNCTION_SCRIPTS_TIMEOUT_MS: "2000", JUNCTION_SCRIPTS_MAX_LOG_BYTES: "65536" } });
    await w.connect("alice");
    const cases: [string, string, Record<string, unknown>][] = [
      ["loops", "for (;;) {}", { status: "timed_out", error: { name: "TimeoutError" } }],
      ["hoards", "const a = []; for (;;) a.push(new Array(100000).fill('x'));", { status: "memory_exceeded" }],
      ["throws-string", 'throw "boom";', { status: "failed", error: { name: "ThrownValue" } }],
      [
        "chatty",
        "for (let i = 0; i < 20000; i++) nango.log('x'.repeat(100));",
        { status: "succeeded", logs_truncated: true },
      ],
      ["bad-args", "await nango.get({});", { status: "failed", error: { name: "TypeError" } }],
    ];
    for (const [name, body] of cases) await w.deploy(name, syncSource(body));
    const res = await w.api("POST", "/sync/trigger", { provider_config_key: CAL, connection_id: "alice", syncs: [] });
    expect(res.status).toBe(200);
    const runs = await w.finishedRuns({ connection_id: "alice" }, cases.length, 60_000);
    for (const [name, , expected] of cases) {
      expect(runs.find((r) => r.script_name === name)).toMatchObject(expected);
    }
    const chatty = runs.find((r) => r.script_name === "chatty");
    expect(JSON.stringify(chatty.logs).length).toBeLessThan(200_000);

    // Still up: the API answers and the next run succeeds.
    expect((await w.api("GET", "/health")).status).toBe(200);
    await w.deploy("fine", syncSource("nango.log('still here');"));
    await w.api("POST", "/sync/trigger", { provider_config_key: CAL, connection_id: "alice", syncs: ["fine"] });
    const [fine] = await w.finishedRuns({ script: "fine" }, 1);
    expect(fine).toMatchObject({ status: "succeeded", logs: [expect.objectContaining({ message: "still here" })] });
  }, 90_000);
});
