import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { waitFor } from "../support/wait-for.ts";
import { CAL, syncSource, useScriptsWorld } from "./scripts-kit.ts";

// The host side of a script's calls is bounded; a long run is visible and cancellable.
setDefaultTimeout(90_000);

const world = useScriptsWorld();
const MiB = 1024 * 1024;
/**
 * How much the Junction process's resident memory may grow while one script asks for its 1 MiB
 * metadata 2,000 times. Before the bounds, 7 MB of metadata asked for 2,000 times at once took the
 * process to 2.8 GB. Measured with the bounds: +207 and +248 MiB on a 2-core VM; the bound leaves room
 * for a collector that lags on a loaded machine (it failed once at 400 MiB with the whole suite running).
 */
const RSS_GROWTH_BOUND = 600 * MiB;

async function trigger(w: Awaited<ReturnType<typeof world>>, name: string) {
  const res = await w.api("POST", "/sync/trigger", { provider_config_key: CAL, connection_id: "alice", syncs: [name] });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.runs[0].id as string;
}

describe("scripts: the host side of script calls is bounded", () => {
  test("metadata is held to the REST API's 1 MiB, set or merged; the refusal is a catchable 400 invalid_metadata", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy(
      "grow",
      syncSource(
        `const chunk = "x".repeat(600 * 1024);
         await nango.updateMetadata({ a: chunk });
         for (const write of [() => nango.updateMetadata({ b: chunk }), () => nango.setMetadata({ c: chunk + chunk })]) {
           try { await write(); nango.log("written"); } catch (err) { nango.log(err.status, err.code); }
         }
         nango.log(Object.keys(await nango.getMetadata()).join(","));`,
      ),
    );
    await trigger(w, "grow");
    const [run] = await w.finishedRuns({ script: "grow" }, 1, 60_000);
    expect(run.status).toBe("succeeded");
    expect(run.logs.map((l: { message: string }) => l.message)).toEqual([
      "400 invalid_metadata",
      "400 invalid_metadata",
      "emailAddress,a",
    ]);
  });

  test("a script asking for its 1 MiB metadata 2,000 times at once, then in waves, keeps the host's memory bounded", async () => {
    // A heap that holds 64 replies of 1 MiB: the sandbox is not what this test is about.
    const w = await world({ env: { JUNCTION_SCRIPTS_MEMORY_MB: "512" } });
    await w.connect("alice");
    await w.deploy(
      "flood",
      syncSource(
        `await nango.setMetadata({ big: "x".repeat(1000 * 1024) });
         const once = await Promise.allSettled(Array.from({ length: 2000 }, () => nango.getMetadata()));
         const refused = once.filter((r) => r.status === "rejected");
         nango.log(once.length - refused.length, refused.length, refused[0].reason.status, refused[0].reason.code);
         let served = once.length - refused.length;
         const began = Date.now();
         while (served < 256) {
           const wave = await Promise.all(Array.from({ length: Math.min(64, 256 - served) }, () => nango.getMetadata()));
           served += wave.length;
         }
         nango.log("served", served);
         nango.log("ms", Date.now() - began);`,
      ),
    );
    Bun.gc(true);
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    let run: { status: string; logs: { message: string }[] };
    try {
      await trigger(w, "flood");
      [run] = await w.finishedRuns({ script: "flood" }, 1, 80_000);
      expect(run.status).toBe("succeeded");
      expect(run.logs.map((l: { message: string }) => l.message)).toEqual([
        "64 1936 429 too_many_calls",
        "served 256",
        expect.any(String),
      ]);
    } finally {
      clearInterval(sampler);
    }
    console.log(
      `metadata flood: RSS ${Math.round(baseline / MiB)} MiB → peak ${Math.round(peak / MiB)} MiB; ${run.logs[2]?.message}`,
    );
    expect(peak - baseline).toBeLessThan(RSS_GROWTH_BOUND);
  });
});

describe("scripts: a long run is visible and cancellable", () => {
  test("a looping sync is listed running with its start time, and POST /scripts/runs/{id}/cancel stops it", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("loops", syncSource("for (;;) {}"));
    const id = await trigger(w, "loops");
    const listed = await waitFor(
      "the run listed as running",
      async () => (await w.runs({ status: "running", script: "loops" })).find((r) => r.id === id) ?? null,
      10_000,
    );
    expect(Date.parse(listed.started_at)).toBeGreaterThan(0);
    expect(listed.finished_at ?? null).toBeNull();

    const began = performance.now();
    const cancelled = await w.api("POST", `/scripts/runs/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(performance.now() - began).toBeLessThan(10_000);
    expect(cancelled.body.data).toMatchObject({
      id,
      status: "failed",
      error: { name: "CancelledError", message: expect.stringContaining("cancelled") },
    });
    const again = await w.api("POST", `/scripts/runs/${id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("run_not_running");
    const unknown = await w.api("POST", "/scripts/runs/run_01kzzzzzzzzzzzzzzzzzzzzzzz/cancel");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("unknown_run");
    const bad = await w.api("POST", "/scripts/runs/nope/cancel");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_id");
  });
});

describe("scripts: two looping syncs starve nothing", () => {
  test("while two syncs loop (60 s deadline), an action answers within the canary bound", async () => {
    // The canary's bound: generous for a shared 2-core machine, far under the loops' 60 s deadline
    // that every other script used to wait for.
    const CANARY_BOUND_MS = 10_000;
    const w = await world();
    await w.connect("alice");
    await w.deploy("loop-1", syncSource("for (;;) {}"));
    await w.deploy("loop-2", syncSource("for (;;) {}"));
    await w.deploy(
      "canary",
      `import { createAction } from "nango";\nexport default createAction({ exec: async () => ({ alive: true }) });\n`,
    );
    const ids = [await trigger(w, "loop-1"), await trigger(w, "loop-2")];
    await waitFor(
      "a loop running",
      async () => ((await w.runs({ status: "running" })).length >= 2 ? true : null),
      10_000,
    );

    const began = performance.now();
    const res = await w.api(
      "POST",
      "/action/trigger",
      { action_name: "canary" },
      { "Connection-Id": "alice", "Provider-Config-Key": CAL },
    );
    const took = performance.now() - began;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ alive: true });
    expect(took).toBeLessThan(CANARY_BOUND_MS);
    console.log(`canary action while two syncs loop: ${Math.round(took)} ms`);
    for (const id of ids) expect((await w.api("POST", `/scripts/runs/${id}/cancel`)).status).toBe(200);
  });
});
